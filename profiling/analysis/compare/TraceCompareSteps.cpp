#include "profiling/analysis/compare/TraceCompareSteps.h"

#include <algorithm>

#include "profiling/analysis/common/Intervals.h"

namespace fuselab {

namespace {

int64_t cpuOpUnionNs(const Trace& trace, int64_t from, int64_t to) {
  std::vector<std::pair<int64_t, int64_t>> iv;
  for (const Track& t : trace.tracks) {
    if (t.kind != TrackKind::Cpu) continue;
    for (size_t i = 0; i < t.size(); ++i)
      if (t.category[i] == Category::CpuOp && t.end_ns(i) > from && t.start_ns[i] < to)
        iv.emplace_back(std::max(from, t.start_ns[i]), std::min(to, t.end_ns(i)));
  }
  return unionLengthNs(std::move(iv));
}

void addGap(StepSample& s, const GpuGap& g) {
  const double d = double(g.durationNs());
  switch (g.cause) {
    case GapCause::HostWait: s.host_wait_ns += d; break;
    case GapCause::KernelWait: s.kernel_wait_ns += d; break;
    case GapCause::Other: s.other_idle_ns += d; break;
  }
}

// The whole analysis scope as one sample.
StepSample wholeTraceSample(const Trace& trace, const TraceAnalysis& a) {
  StepSample s;
  s.kernels = double(a.kernel_count);
  s.gpu_ops = double(a.gpu_op_count);
  for (const LaunchLink& l : trace.launches())
    if (l.launch && !l.gpu_ops.empty()) s.launches += 1;
  s.gpu_busy_ns = double(a.utilization.busy_ns);
  s.cpu_dispatch_ns = double(cpuOpUnionNs(trace, a.scope.start_ns, a.scope.end_ns));
  s.wall_ns = double(a.scope.spanNs());
  s.utilization = a.utilization.fraction;
  s.host_wait_ns = double(a.idle.host_wait_ns);
  s.kernel_wait_ns = double(a.idle.kernel_wait_ns);
  s.other_idle_ns = double(a.idle.other_ns);
  if (a.launch_delay_summary.count > 0) s.mean_launch_delay_ns = a.launch_delay_summary.mean_ns;
  return s;
}

}  // namespace

std::optional<size_t> stepOrdinalAt(const std::vector<StepStats>& steps, int64_t time_ns) {
  auto it = std::upper_bound(steps.begin(), steps.end(), time_ns,
                             [](int64_t v, const StepStats& s) { return v < s.start_ns; });
  if (it == steps.begin()) return std::nullopt;
  --it;
  if (time_ns > it->end_ns) return std::nullopt;
  return size_t(it - steps.begin());
}

std::vector<StepSample> stepSamples(const Trace& trace, const TraceAnalysis& a) {
  if (a.steps.empty()) return {wholeTraceSample(trace, a)};
  std::vector<StepSample> out(a.steps.size());
  for (size_t k = 0; k < a.steps.size(); ++k) {
    const StepStats& st = a.steps[k];
    StepSample& s = out[k];
    s.kernels = double(st.kernels);
    s.gpu_ops = double(st.gpu_ops);
    s.launches = double(st.launches);
    s.gpu_busy_ns = double(st.gpu_busy_ns);
    s.cpu_dispatch_ns = double(st.cpu_dispatch_ns);
    s.wall_ns = double(st.wall_ns);
    s.utilization = st.wall_ns > 0 ? double(st.gpu_busy_ns) / double(st.wall_ns) : 0.0;
  }
  for (const GpuGap& g : a.gaps)
    if (auto k = stepOrdinalAt(a.steps, attributionTimeNs(trace, g.next_op))) addGap(out[*k], g);
  std::vector<std::pair<double, size_t>> delays(a.steps.size());  // (sum, count)
  for (const LaunchDelay& d : a.launch_delays) {
    const Track& t = trace.tracks[d.launch.track];
    if (auto k = stepOrdinalAt(a.steps, t.start_ns[d.launch.index])) {
      delays[*k].first += double(d.delay_ns);
      ++delays[*k].second;
    }
  }
  for (size_t k = 0; k < out.size(); ++k)
    if (delays[k].second > 0) out[k].mean_launch_delay_ns = delays[k].first / double(delays[k].second);
  return out;
}

}  // namespace fuselab
