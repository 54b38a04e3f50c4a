#include "profiling/analysis/run/RankSummary.h"

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/common/Intervals.h"

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
  s.gpu_ops = t.gpu_op_count;
  s.utilization = t.utilization;
  s.idle = t.idle;
  s.time = rankTimeBreakdown(r.trace);
  s.collectives = collectives.size();
  s.comm_ns = unionNs(collectives);
  s.overlap_fraction = commComputeOverlap(r.trace, collectives);
  return s;
}

}  // namespace

RankSummary summarizeRank(const RankTrace& rank, const AnalysisOptions& options) {
  RankSummary s;
  s.collectives = findCollectives(rank.trace);
  if (!s.collectives.empty()) {
    const ArrivalCauses causes(rank.trace);
    s.causes.reserve(s.collectives.size());
    for (const CollectiveEvent& c : s.collectives) s.causes.push_back(causes.before(c));
  }
  s.stats = rankStats(rank, s.collectives, options);
  s.activity = binActivity(rankActivityIntervals(rank.trace), s.stats.begin_ns, s.stats.end_ns, kRankActivityBins);
  return s;
}

}  // namespace fuselab
