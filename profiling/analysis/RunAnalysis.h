// Everything fuselab says about a run (several ranks of one job): the
// collectives of each rank, their matching across ranks, the clock
// alignment, per-collective and per-rank figures and the stragglers.
// The pieces: CollectiveEvents.h, RunGroupKeys.h, RunMatching.h, RunAlignment.h,
// RunCollectives.h, RunLateRank.h, RunRanks.h, RankTimeBreakdown.h, RunVerdict.h.
#pragma once

#include <optional>
#include <vector>

#include "profiling/analysis/Analysis.h"
#include "profiling/analysis/RunRanks.h"
#include "profiling/analysis/RunVerdict.h"

namespace fuselab {

struct RunAnalysisOptions {
  AnalysisOptions trace;             // per-rank analysis (idle gap threshold)
  std::optional<AlignMethod> align;  // nullopt: collectives when they match, else epoch
};

struct RunAnalysis {
  std::vector<std::vector<CollectiveEvent>> collectives_per_rank;  // by position in Run::ranks
  std::vector<MatchedCollective> matched;
  RunAlignment alignment;
  std::vector<CollectiveStats> collectives;  // by first arrival
  std::vector<RankStats> ranks;              // by position in Run::ranks
  std::vector<Straggler> stragglers;         // worst first
  RunVerdict verdict;
};

RunAnalysis analyzeRun(const Run& run, const RunAnalysisOptions& options = {});

}  // namespace fuselab
