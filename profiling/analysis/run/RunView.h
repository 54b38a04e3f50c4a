// A run as the viewer holds it: the ranks' traces, the run's analysis and one
// merged trace of all ranks on the aligned axis (RunMerge.h). Realigning
// (another AlignMethod) shares the loaded ranks and their figures and redoes
// the alignment, the collective figures and the merge.
//
// A run larger than memory is opened by the streaming pass (RunStreaming.h):
// its analysis covers every rank, but the ranks' events are dropped and the
// merged trace holds only the ranks whose lanes were asked for
// (withRankLanes), as many as fit in memory, the longest loaded evicted first.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "profiling/analysis/run/RunAnalysis.h"
#include "profiling/analysis/run/RunStreaming.h"
#include "profiling/trace/RunLoader.h"
#include "profiling/trace/RunMerge.h"

namespace fuselab {

struct RunView {
  std::shared_ptr<const Run> run;
  // Shared by the views made from this one: loading a rank's lanes keeps it
  // (a copy took about 60 ms at 128 ranks of 1M events); realigning makes a new one.
  std::shared_ptr<const RunAnalysis> analysis;
  MergedRun merged;
  std::string dropped_reason;  // why the ranks' events were dropped; "" when the run is whole
  uint64_t memory_bytes = 0;   // the memory the run was allowed when it opened
  struct LoadedLanes {
    size_t rank_pos = 0;
    // That rank's file, read again, as merged alone (mergeRankAlone): when
    // it is the only one loaded, `merged` shares it rather than copying it.
    MergedRun alone;
    int64_t offset_ns = 0;  // the clock offset it was merged with
    uint64_t import_peak = 0;  // importPeakEstimate of its file, to make room for the next
  };
  // Runs whose events were dropped: the ranks loaded again for their lanes,
  // oldest first.
  std::vector<LoadedLanes> lanes;

  bool eventsDropped() const { return !dropped_reason.empty(); }
  // Whether the merged trace holds rank position `rank_pos`'s events.
  bool hasLanes(size_t rank_pos) const { return merged.hasRank(rank_pos); }
  // The merged trace's event for rank position `rank_pos`'s event `e`;
  // nullopt when that rank's lanes are not loaded.
  std::optional<EventRef> mergedEvent(size_t rank_pos, EventRef e) const {
    if (!merged.hasRank(rank_pos)) return std::nullopt;
    return merged.toMerged(rank_pos, e);
  }
};

// Reads the ranks (RunStreaming.h), analyses and merges. Throws RunLoadError
// or TraceImportCancelled.
RunView openRunView(const std::vector<std::filesystem::path>& files, const RunStreamOptions& options = {});
// The same ranks on another alignment: new offsets, collective figures and
// merge; each rank's own figures are kept (realignRun).
RunView realignRunView(const RunView& view, std::optional<AlignMethod> align);
// A run whose events were dropped, with rank position `rank_pos`'s lanes
// loaded (its file read again). Ranks loaded before stay while the loaded
// ones' imports fit in the streaming budget of the run's memory; the oldest
// go first. Throws TraceImportError.
RunView withRankLanes(const RunView& view, size_t rank_pos, const ChromeImportOptions& import = {});

}  // namespace fuselab
