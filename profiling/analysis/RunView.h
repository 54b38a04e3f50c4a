// A run as the viewer holds it: the run's analysis and one merged trace of
// all ranks on the aligned axis (RunMerge.h). The per-rank traces are freed
// once merged; `run` keeps ranks, files, world size and warnings.
#pragma once

#include <filesystem>
#include <vector>

#include "profiling/analysis/RunAnalysis.h"
#include "profiling/trace/RunLoader.h"
#include "profiling/trace/RunMerge.h"

namespace fuselab {

struct RunView {
  Run run;  // RankTrace::trace emptied
  RunAnalysis analysis;
  MergedRun merged;

  // The merged trace's event for rank position `rank_pos`'s event `e`.
  EventRef mergedEvent(size_t rank_pos, EventRef e) const { return merged.toMerged(rank_pos, e); }
};

// Loads (RunLoader.h), analyses and merges. Throws RunLoadError.
RunView openRunView(const std::vector<std::filesystem::path>& files, const RunAnalysisOptions& options = {},
                    const RunLoadOptions& load = {});
// Analyses and merges a run already loaded (its traces are moved out).
RunView makeRunView(Run run, const RunAnalysisOptions& options = {});

}  // namespace fuselab
