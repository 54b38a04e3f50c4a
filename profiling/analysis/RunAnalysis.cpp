#include "profiling/analysis/RunAnalysis.h"

#include <future>

#include "profiling/analysis/Intervals.h"
#include "profiling/trace/ParallelFor.h"
#include "profiling/analysis/RunGroupKeys.h"

namespace fuselab {

namespace {

int64_t unionNs(const std::vector<CollectiveEvent>& events) {
  std::vector<std::pair<int64_t, int64_t>> spans;
  spans.reserve(events.size());
  for (const CollectiveEvent& c : events) spans.emplace_back(c.start_ns, c.end_ns);
  return unionLengthNs(std::move(spans));
}

// The alignment and the collectives' figures on it.
void align(const Run& run, RunAnalysis& a, std::optional<AlignMethod> method) {
  a.matched = a.matched_unaligned;
  a.alignment = alignRun(run, a.collectives_per_rank, a.matched, method);
  a.collectives = collectiveStats(run, a.collectives_per_rank, a.matched, a.alignment);
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
}

RankStats rankStats(const RankTrace& r, const std::vector<CollectiveEvent>& collectives, const AnalysisOptions& options) {
  const TraceAnalysis t = analyzeTrace(r.trace, options);
  RankStats s;
  s.rank = r.rank;
  s.file = r.file;
  s.kernels = t.kernel_count;
  s.utilization = t.utilization;
  s.idle = t.idle;
  s.time = rankTimeBreakdown(r.trace);
  s.collectives = collectives.size();
  s.comm_ns = unionNs(collectives);
  s.overlap_fraction = commComputeOverlap(r.trace, collectives);
  return s;
}

}  // namespace

RunAnalysis analyzeRun(const Run& run, const RunAnalysisOptions& options) { return analyzeRun(run, options, {}); }

RunAnalysis analyzeRun(const Run& run, const RunAnalysisOptions& options,
                       const std::function<void(const RunAnalysis& aligned)>& beside) {
  RunAnalysis a;
  a.collectives_per_rank.reserve(run.ranks.size());
  for (const RankTrace& r : run.ranks) a.collectives_per_rank.push_back(findCollectives(r.trace));
  keyUnnamedGroups(run, a.collectives_per_rank);
  a.matched_unaligned = matchCollectives(a.collectives_per_rank);
  align(run, a, options.align);
  std::future<void> side;
  if (beside) side = std::async(std::launch::async, [&beside, aligned = a] { beside(aligned); });
  // Each rank's trace figures, side by side (the ranks are independent).
  a.ranks.resize(run.ranks.size());
  parallelFor(run.ranks.size(), [&](size_t i) {
    a.ranks[i] = rankStats(run.ranks[i], a.collectives_per_rank[i], options.trace);
  });
  if (side.valid()) side.get();
  summarize(a);
  return a;
}

RunAnalysis realignRun(const Run& run, RunAnalysis analysis, std::optional<AlignMethod> method) {
  align(run, analysis, method);
  summarize(analysis);
  return analysis;
}

}  // namespace fuselab
