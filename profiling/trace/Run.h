// A run: the traces of the ranks of one distributed job, one trace per rank.
// Each rank keeps its own tracks and clock; analysis (profiling/analysis/run/)
// aligns the clocks and compares the ranks. See ../shared/DESIGN.md ("Runs").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "profiling/trace/DistributedInfo.h"
#include "profiling/trace/NcclProfile.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct RankTrace {
  int rank = 0;
  std::string file;  // the path it was read from
  DistributedInfo info;
  Trace trace;       // finalized; its meta only when events_dropped
  // The events were read, summarised and dropped to keep a run larger than
  // memory within bounds (RunStreaming.h); the rank's lanes load on demand.
  bool events_dropped = false;
  // The NCCL profiler plugin's side file of this rank, found beside its trace.
  std::optional<NcclProfile> nccl;
};

struct Run {
  std::vector<RankTrace> ranks;  // sorted by rank, no rank twice
  int world_size = 0;            // distributedInfo's, else the highest rank + 1
  std::string backend;           // distributedInfo's ("" when no file says)
  std::vector<int> missing_ranks;     // ranks below world_size that no file holds
  std::vector<std::string> warnings;  // files skipped and why

  // Position of `rank` in `ranks`, or -1.
  int indexOfRank(int rank) const;
};

}  // namespace fuselab
