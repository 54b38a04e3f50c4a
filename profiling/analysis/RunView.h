// A run as the viewer holds it: the ranks' traces, the run's analysis and one
// merged trace of all ranks on the aligned axis (RunMerge.h). Realigning
// (another AlignMethod) shares the loaded ranks and their figures and redoes
// the alignment, the collective figures and the merge.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "profiling/analysis/RunAnalysis.h"
#include "profiling/trace/RunLoader.h"
#include "profiling/trace/RunMerge.h"

namespace fuselab {

struct RunView {
  std::shared_ptr<const Run> run;
  RunAnalysis analysis;
  MergedRun merged;

  // The merged trace's event for rank position `rank_pos`'s event `e`.
  EventRef mergedEvent(size_t rank_pos, EventRef e) const { return merged.toMerged(rank_pos, e); }
};

// Loads (RunLoader.h), analyses and merges. Throws RunLoadError.
RunView openRunView(const std::vector<std::filesystem::path>& files, const RunAnalysisOptions& options = {},
                    const RunLoadOptions& load = {});
// Analyses and merges a run already loaded.
RunView makeRunView(std::shared_ptr<const Run> run, const RunAnalysisOptions& options = {});
// The same ranks on another alignment: new offsets, collective figures and
// merge; each rank's own figures are kept (realignRun).
RunView realignRunView(const RunView& view, std::optional<AlignMethod> align);

}  // namespace fuselab
