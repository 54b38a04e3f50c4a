#include "profiling/analysis/RunAnalysis.h"

#include "profiling/analysis/Intervals.h"
#include "profiling/analysis/RunGroupKeys.h"

namespace fuselab {

namespace {

int64_t unionNs(const std::vector<CollectiveEvent>& events) {
  std::vector<std::pair<int64_t, int64_t>> spans;
  spans.reserve(events.size());
  for (const CollectiveEvent& c : events) spans.emplace_back(c.start_ns, c.end_ns);
  return unionLengthNs(std::move(spans));
}

// The alignment and everything that follows from it; a.ranks already hold
// each rank's trace figures.
void alignAndSummarize(const Run& run, RunAnalysis& a, std::optional<AlignMethod> align) {
  a.matched = a.matched_unaligned;
  a.alignment = alignRun(run, a.collectives_per_rank, a.matched, align);
  a.collectives = collectiveStats(run, a.collectives_per_rank, a.matched, a.alignment);
  for (RankStats& s : a.ranks) {
    s.wait_ns = 0;
    s.late_count = 0;
    s.wait_caused_ns = 0;
  }
  addCollectiveFigures(a.collectives, a.ranks);
  a.stragglers = rankStragglers(a.ranks);
  a.verdict = decideRunVerdict(a.ranks, a.collectives, a.stragglers);
}

}  // namespace

RunAnalysis analyzeRun(const Run& run, const RunAnalysisOptions& options) {
  RunAnalysis a;
  a.collectives_per_rank.reserve(run.ranks.size());
  for (const RankTrace& r : run.ranks) a.collectives_per_rank.push_back(findCollectives(r.trace));
  keyUnnamedGroups(run, a.collectives_per_rank);
  a.matched_unaligned = matchCollectives(a.collectives_per_rank);

  a.ranks.reserve(run.ranks.size());
  for (size_t i = 0; i < run.ranks.size(); ++i) {
    const RankTrace& r = run.ranks[i];
    const TraceAnalysis t = analyzeTrace(r.trace, options.trace);
    RankStats s;
    s.rank = r.rank;
    s.file = r.file;
    s.kernels = t.kernel_count;
    s.utilization = t.utilization;
    s.idle = t.idle;
    s.time = rankTimeBreakdown(r.trace);
    s.collectives = a.collectives_per_rank[i].size();
    s.comm_ns = unionNs(a.collectives_per_rank[i]);
    s.overlap_fraction = commComputeOverlap(r.trace, a.collectives_per_rank[i]);
    a.ranks.push_back(std::move(s));
  }
  alignAndSummarize(run, a, options.align);
  return a;
}

RunAnalysis realignRun(const Run& run, RunAnalysis analysis, std::optional<AlignMethod> align) {
  alignAndSummarize(run, analysis, align);
  return analysis;
}

}  // namespace fuselab
