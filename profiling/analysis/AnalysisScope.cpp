// Which GPU ops the analysis looks at: those of the captured ProfilerStep#k
// steps (attributed by their launch call, as HTA does), else all of them.
#include <algorithm>
#include <limits>

#include "profiling/analysis/Analysis.h"

namespace fuselab {

int64_t attributionTimeNs(const Trace& trace, EventRef gpu_op) {
  const Track& t = trace.tracks[gpu_op.track];
  if (int64_t corr = t.correlation[gpu_op.index]; corr >= 0) {
    if (const LaunchLink* link = trace.launchFor(corr); link && link->launch)
      return trace.tracks[link->launch->track].start_ns[link->launch->index];
  }
  return t.start_ns[gpu_op.index];
}

AnalysisScope findAnalysisScope(const Trace& trace) {
  AnalysisScope scope;
  std::vector<std::pair<int64_t, int64_t>> steps;  // sorted by start
  for (EventRef r : findProfilerSteps(trace)) {
    const Track& t = trace.tracks[r.track];
    steps.emplace_back(t.start_ns[r.index], t.end_ns(r.index));
  }
  scope.from_steps = !steps.empty();

  // prefix_end[j]: latest end among steps[0..j], so the search below can stop
  // as soon as no earlier step reaches `time`.
  std::vector<int64_t> prefix_end(steps.size());
  for (size_t j = 0; j < steps.size(); ++j)
    prefix_end[j] = j ? std::max(prefix_end[j - 1], steps[j].second) : steps[j].second;
  auto inSomeStep = [&](int64_t time) {
    auto it = std::upper_bound(steps.begin(), steps.end(), time,
                               [](int64_t v, const auto& s) { return v < s.first; });
    if (it == steps.begin()) return false;
    for (size_t j = size_t(it - steps.begin()) - 1;; --j) {
      if (time <= steps[j].second) return true;
      if (j == 0 || prefix_end[j - 1] < time) return false;
    }
  };

  int64_t gpu_end = std::numeric_limits<int64_t>::min();
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (!isGpuWork(t.category[i])) continue;
      EventRef r{ti, i};
      if (scope.from_steps && !inSomeStep(attributionTimeNs(trace, r))) continue;
      scope.gpu_ops.push_back(r);
      gpu_end = std::max(gpu_end, t.end_ns(i));
    }
  }

  if (scope.from_steps) {
    scope.start_ns = steps.front().first;
    scope.end_ns = steps.front().second;
    for (const auto& s : steps) scope.end_ns = std::max(scope.end_ns, s.second);
    if (!scope.gpu_ops.empty()) scope.end_ns = std::max(scope.end_ns, gpu_end);
  } else {
    // The whole trace: CPU and GPU tracks (not the profiler's own span lanes).
    bool any = false;
    for (const Track& t : trace.tracks) {
      if (t.kind == TrackKind::Other || t.size() == 0) continue;
      int64_t end = t.end_ns(0);
      for (size_t i = 0; i < t.size(); ++i) end = std::max(end, t.end_ns(i));
      if (!any) scope.start_ns = t.start_ns.front(), scope.end_ns = end, any = true;
      scope.start_ns = std::min(scope.start_ns, t.start_ns.front());
      scope.end_ns = std::max(scope.end_ns, end);
    }
  }
  return scope;
}

}  // namespace fuselab
