// Everything fuselab says about a run (several ranks of one job): the
// collectives of each rank, their matching across ranks, the clock
// alignment, per-collective and per-rank figures and the stragglers.
// The pieces: CollectiveEvents.h, RunGroupKeys.h, RunMatching.h, RunAlignment.h,
// RunCollectives.h, RunLateRank.h, RunRanks.h, RankTimeBreakdown.h, RunVerdict.h, RunNccl.h.
// Each rank's part is its RankSummary (RankSummary.h): a run whose events
// do not fit in memory is analysed from summaries alone (RunStreaming.h).
#pragma once

#include <optional>
#include <vector>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/run/RankSummary.h"
#include "profiling/analysis/run/RunNccl.h"
#include "profiling/analysis/run/RunRanks.h"
#include "profiling/analysis/run/RunVerdict.h"

namespace fuselab {

struct RunAnalysisOptions {
  AnalysisOptions trace;             // per-rank analysis (idle gap threshold)
  std::optional<AlignMethod> align;  // nullopt: collectives when they match, else epoch
};

struct RunAnalysis {
  std::vector<std::vector<CollectiveEvent>> collectives_per_rank;  // by position in Run::ranks
  std::vector<std::vector<ArrivalCause>> causes_per_rank;         // before each of those collectives
  std::vector<RankActivityBins> activity;                         // by position, each rank's own clock
  std::vector<MatchedCollective> matched;            // after alignment dropped mismatched members
  std::vector<MatchedCollective> matched_unaligned;  // before: what realignRun starts from
  RunAlignment alignment;
  std::vector<CollectiveStats> collectives;  // by first arrival
  std::vector<RankStats> ranks;              // by position in Run::ranks
  std::vector<Straggler> stragglers;         // worst first
  RunVerdict verdict;                        // its explanation ends with what NCCL's side files say (ncclNotes)
  std::vector<RankNcclJoin> nccl;            // by position; empty joins where a rank has no side file
};

RunAnalysis analyzeRun(const Run& run, const RunAnalysisOptions& options = {});

// The same from each rank's summary (by position in run.ranks, whose events
// may have been dropped): what the streaming pass calls.
RunAnalysis analyzeRunSummaries(const Run& run, std::vector<RankSummary> summaries,
                                const RunAnalysisOptions& options = {});

// Earliest event of the run on the aligned axis (0 for an empty run).
int64_t alignedBeginNs(const RunAnalysis& analysis);

// `analysis` (of `run`) on another clock alignment: keeps what does not
// depend on it (each rank's collectives, their matching, the per-rank trace
// figures) and redoes the alignment and what follows from it. Equal to
// analyzeRun with that alignment, without analysing every rank again.
RunAnalysis realignRun(const Run& run, RunAnalysis analysis, std::optional<AlignMethod> align);

}  // namespace fuselab
