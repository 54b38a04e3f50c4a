// The figures of each collective matched across a run's ranks, on the
// aligned axis: wait = first to last arrival (arrival = the kernel's or Gloo
// op's start), transfer = last arrival to the end (the latest end), message
// size and nccl-tests bandwidths, and the late rank with what it did before.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiling/analysis/run/RunAlignment.h"
#include "profiling/analysis/run/RunLateRank.h"

namespace fuselab {

struct CollectiveArrival {
  size_t rank_pos = 0;
  int rank = 0;
  EventRef event;       // in that rank's trace
  size_t index = 0;     // in that rank's collectives (RunAnalysis::collectives_per_rank)
  int64_t arrival_ns = 0;  // aligned
  int64_t end_ns = 0;      // aligned
};

// What NCCL's profiler plugin said of a collective, over the ranks joined:
// algorithm and protocol (the first joined rank's; ranks agree), channels
// and warps, each channel's time (first start to stop) over every joined
// rank's channels, and the largest spread of channel starts on one rank.
struct NcclCollectiveFigures {
  std::string algo, proto;
  int channels = 0, warps = 0;
  int ranks_joined = 0;
  int64_t channel_min_ns = 0, channel_median_ns = 0, channel_max_ns = 0;
  int64_t channel_spread_ns = 0;
  bool has_channel_times() const { return channel_max_ns > 0; }
};

struct CollectiveStats {
  std::string name;
  std::string group;
  CollectiveKind kind = CollectiveKind::Other;
  size_t index = 0;     // order within the group
  int group_size = 0;   // ranks of the group (for bandwidth)
  int64_t bytes = -1;   // nccl-tests message size, -1 unknown
  int64_t start_ns = 0;         // first arrival, aligned
  int64_t last_arrival_ns = 0;
  int64_t end_ns = 0;           // latest end
  int64_t wait_ns = 0;          // last arrival - first arrival
  int64_t transfer_ns = 0;      // end - last arrival
  std::optional<double> algbw_gbps;  // bytes / transfer (GB/s = bytes per ns)
  std::optional<double> busbw_gbps;  // algbw x busBandwidthFactor
  size_t late_pos = 0;  // position of the late rank in Run::ranks
  int late_rank = 0;
  ArrivalCause late_rank_before;
  std::vector<CollectiveArrival> arrivals;  // by rank
  std::optional<NcclCollectiveFigures> nccl;  // where a rank's NCCL side file joined it (RunNccl.h)
};

// Sorted by first arrival. causes_per_rank[r][i]: what rank position r did
// before its collective i (RankSummary.h); unknown where not given.
std::vector<CollectiveStats> collectiveStats(const Run& run, const std::vector<std::vector<CollectiveEvent>>& per_rank,
                                             const std::vector<std::vector<ArrivalCause>>& causes_per_rank,
                                             const std::vector<MatchedCollective>& matched,
                                             const RunAlignment& alignment);

// The size of a collective's group: what its ops state, else the trace's
// process group of that name, else (the default group) the run's world size.
int collectiveGroupSize(const Run& run, const CollectiveEvent& c, size_t rank_pos);

}  // namespace fuselab
