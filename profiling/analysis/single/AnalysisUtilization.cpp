// GPU utilization: the union of in-scope GPU op intervals (all streams and
// devices) over the span of the captured steps.
#include <algorithm>

#include "profiling/analysis/single/AnalysisUtilization.h"
#include "profiling/analysis/common/Intervals.h"

namespace fuselab {

Utilization computeUtilization(const Trace& trace, const AnalysisScope& scope) {
  std::vector<std::pair<int64_t, int64_t>> intervals;
  intervals.reserve(scope.gpu_ops.size());
  for (EventRef r : scope.gpu_ops) {
    const Track& t = trace.tracks[r.track];
    int64_t s = std::max(t.start_ns[r.index], scope.start_ns);
    int64_t e = std::min(t.end_ns(r.index), scope.end_ns);
    if (e > s) intervals.emplace_back(s, e);
  }
  Utilization u;
  u.busy_ns = unionLengthNs(std::move(intervals));
  u.span_ns = std::max<int64_t>(0, scope.spanNs());
  u.fraction = u.span_ns > 0 ? double(u.busy_ns) / double(u.span_ns) : 0.0;
  return u;
}

}  // namespace fuselab
