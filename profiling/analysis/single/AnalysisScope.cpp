// Which GPU ops the analysis looks at: those of the captured ProfilerStep#k
// steps (attributed by their launch call, as HTA does), else all of them.
#include <algorithm>
#include <limits>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/common/StepIntervals.h"

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

  const StepIntervals step_index(steps);
  auto inSomeStep = [&](int64_t time) { return step_index.firstContaining(time).has_value(); };

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
