#include "profiling/analysis/RankSummary.h"

#include "profiling/analysis/Analysis.h"
#include "profiling/analysis/Intervals.h"

namespace fuselab {

namespace {

int64_t unionNs(const std::vector<CollectiveEvent>& events) {
  Intervals spans;
  spans.reserve(events.size());
  for (const CollectiveEvent& c : events) spans.emplace_back(c.start_ns, c.end_ns);
  return unionLengthNs(std::move(spans));
}

RankStats rankStats(const RankTrace& r, const std::vector<CollectiveEvent>& collectives, const AnalysisOptions& options) {
  const TraceAnalysis t = analyzeGpuTime(r.trace, options);
  RankStats s;
  s.rank = r.rank;
  s.file = r.file;
  s.begin_ns = r.trace.beginNs();
  s.end_ns = r.trace.endNs();
  s.events = r.trace.eventCount();
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

void completeRankSummary(const RankTrace& rank, RankSummary& summary, const AnalysisOptions& options) {
  summary.causes.clear();
  if (!summary.collectives.empty()) {
    const ArrivalCauses causes(rank.trace);
    summary.causes.reserve(summary.collectives.size());
    for (const CollectiveEvent& c : summary.collectives) summary.causes.push_back(causes.before(c));
  }
  summary.stats = rankStats(rank, summary.collectives, options);
  summary.activity = binActivity(rankActivityIntervals(rank.trace), summary.stats.begin_ns, summary.stats.end_ns,
                                 kRankActivityBins);
}

RankSummary summarizeRank(const RankTrace& rank, const AnalysisOptions& options) {
  RankSummary s;
  s.collectives = findCollectives(rank.trace);
  completeRankSummary(rank, s, options);
  return s;
}

}  // namespace fuselab
