#include "profiling/analysis/run/RunAnalysis.h"

#include <algorithm>
#include <cstdint>

#include "profiling/analysis/run/RunGroupKeys.h"
#include "profiling/trace/ParallelFor.h"

namespace fuselab {

namespace {

// The alignment and the collectives' figures on it.
void align(const Run& run, RunAnalysis& a, std::optional<AlignMethod> method) {
  a.matched = a.matched_unaligned;
  a.alignment = alignRun(run, a.collectives_per_rank, a.matched, method);
  a.collectives = collectiveStats(run, a.collectives_per_rank, a.causes_per_rank, a.matched, a.alignment);
  addNcclFigures(a.collectives, a.nccl);
}

// Group keys made to agree across ranks, then the matching.
void matchAcrossRanks(const Run& run, RunAnalysis& a) {
  keyUnnamedGroups(run, a.collectives_per_rank);
  a.matched_unaligned = matchCollectives(a.collectives_per_rank);
  a.nccl = joinRunNccl(run, a.collectives_per_rank);
}

// What follows from the alignment and each rank's trace figures (a.ranks).
void summarize(RunAnalysis& a) {
  for (RankStats& s : a.ranks) {
    s.wait_ns = 0;
    s.late_count = 0;
    s.wait_caused_ns = 0;
  }
  addCollectiveFigures(a.collectives, a.ranks);
  a.stragglers = rankStragglers(a.ranks);
  a.verdict = decideRunVerdict(a.ranks, a.collectives, a.stragglers);
  for (const std::string& note : ncclNotes(a.collectives))
    a.verdict.explanation += (a.verdict.explanation.empty() ? "" : " ") + note;
}

// Moves each summary's parts after the collectives into `a`.
void takeRankParts(std::vector<RankSummary>& summaries, RunAnalysis& a) {
  a.causes_per_rank.clear();
  a.ranks.clear();
  a.activity.clear();
  for (RankSummary& s : summaries) {
    a.causes_per_rank.push_back(std::move(s.causes));
    a.ranks.push_back(std::move(s.stats));
    a.activity.push_back(std::move(s.activity));
  }
}

}  // namespace

RunAnalysis analyzeRun(const Run& run, const RunAnalysisOptions& options) {
  // Each rank's summary side by side (the ranks are independent).
  std::vector<RankSummary> summaries(run.ranks.size());
  parallelFor(run.ranks.size(), [&](size_t i) { summaries[i] = summarizeRank(run.ranks[i], options.trace); });
  return analyzeRunSummaries(run, std::move(summaries), options);
}

int64_t alignedBeginNs(const RunAnalysis& a) {
  int64_t begin = INT64_MAX;
  for (size_t r = 0; r < a.ranks.size() && r < a.alignment.offsets_ns.size(); ++r)
    if (a.ranks[r].events > 0) begin = std::min(begin, a.ranks[r].begin_ns + a.alignment.offsets_ns[r]);
  return begin == INT64_MAX ? 0 : begin;
}

RunAnalysis analyzeRunSummaries(const Run& run, std::vector<RankSummary> summaries, const RunAnalysisOptions& options) {
  RunAnalysis a;
  for (RankSummary& s : summaries) a.collectives_per_rank.push_back(std::move(s.collectives));
  takeRankParts(summaries, a);
  matchAcrossRanks(run, a);
  align(run, a, options.align);
  summarize(a);
  return a;
}

RunAnalysis realignRun(const Run& run, RunAnalysis analysis, std::optional<AlignMethod> method) {
  align(run, analysis, method);
  summarize(analysis);
  return analysis;
}

}  // namespace fuselab
