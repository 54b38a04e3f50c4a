#include "profiling/analysis/compare/TraceCompare.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "profiling/analysis/compare/TraceCompareSteps.h"

namespace fuselab {

std::optional<double> CompareRow::delta() const {
  if (!a || !b) return std::nullopt;
  return *b - *a;
}

std::optional<double> CompareRow::ratio() const {
  if (!a || !b || *a == 0) return std::nullopt;
  return *b / *a;
}

namespace {

// The samples of one side, and what its pooled verdict needs.
struct SideSamples {
  std::vector<StepSample> steps;
  std::vector<std::vector<KernelOccurrence>> kernels;  // per sample
  size_t traces = 0, profiler_steps = 0;
  uint64_t gpu_ops = 0;
  Utilization utilization;
  IdleBreakdown idle;
};

SideSamples collect(const std::vector<CompareInput>& side) {
  if (side.empty()) throw std::invalid_argument("compare: each side needs at least one trace");
  SideSamples s;
  for (const CompareInput& in : side) {
    const Trace& t = *in.trace;
    const TraceAnalysis& a = *in.analysis;
    for (StepSample& x : stepSamples(t, a)) s.steps.push_back(x);
    for (auto& k : kernelOccurrences(t, a)) s.kernels.push_back(std::move(k));
    ++s.traces;
    s.profiler_steps += a.steps.size();
    s.gpu_ops += a.gpu_op_count;
    s.utilization.busy_ns += a.utilization.busy_ns;
    s.utilization.span_ns += a.utilization.span_ns;
    s.idle.host_wait_ns += a.idle.host_wait_ns;
    s.idle.kernel_wait_ns += a.idle.kernel_wait_ns;
    s.idle.other_ns += a.idle.other_ns;
    s.idle.gap_count += a.idle.gap_count;
  }
  if (s.utilization.span_ns > 0)
    s.utilization.fraction = double(s.utilization.busy_ns) / double(s.utilization.span_ns);
  return s;
}

template <class Get>
std::vector<double> values(const SideSamples& s, Get get) {
  std::vector<double> out;
  for (const StepSample& x : s.steps)
    if (std::optional<double> v = get(x)) out.push_back(*v);
  return out;
}

struct SlotSide {
  std::vector<double> durations;
  std::map<std::string, size_t> names;
};

std::string mostFrequent(const std::map<std::string, size_t>& names) {
  std::string best;
  size_t count = 0;
  for (const auto& [name, n] : names)
    if (n > count) best = name, count = n;
  return best;
}

std::vector<CompareKernelRow> kernelRows(const SideSamples& a, const SideSamples& b) {
  std::map<KernelSlotKey, std::pair<SlotSide, SlotSide>> slots;
  for (int side = 0; side < 2; ++side)
    for (const auto& sample : (side == 0 ? a : b).kernels)
      for (const KernelOccurrence& o : sample) {
        SlotSide& s = side == 0 ? slots[o.key].first : slots[o.key].second;
        s.durations.push_back(o.dur_ns);
        ++s.names[o.name];
      }
  std::vector<CompareKernelRow> rows;
  for (const auto& [key, sides] : slots) {
    CompareKernelRow r;
    r.key = key;
    r.label = kernelSlotLabel(key);
    r.category = key.category;
    r.a_name = mostFrequent(sides.first.names);
    r.b_name = mostFrequent(sides.second.names);
    r.a_per_step = double(sides.first.durations.size()) / double(a.kernels.size());
    r.b_per_step = double(sides.second.durations.size()) / double(b.kernels.size());
    r.a_stats = summarizeSamples(sides.first.durations);
    r.b_stats = summarizeSamples(sides.second.durations);
    r.noise = compareSamples(sides.first.durations, sides.second.durations);
    rows.push_back(std::move(r));
  }
  std::sort(rows.begin(), rows.end(), [](const CompareKernelRow& x, const CompareKernelRow& y) {
    const double mx = std::max(x.a_stats.median, x.b_stats.median), my = std::max(y.a_stats.median, y.b_stats.median);
    return mx != my ? mx > my : x.key < y.key;
  });
  return rows;
}

void align(TraceComparison& c, const CompareInput& a, const CompareInput& b, size_t step) {
  const auto& as = a.analysis->steps;
  const auto& bs = b.analysis->steps;
  if (step < as.size() && step < bs.size()) {
    c.aligned_on_step = true;
    c.b_offset_ns = as[step].start_ns - bs[step].start_ns;
    c.alignment = as[step].name + " (A) with " + bs[step].name + " (B)";
    return;
  }
  c.b_offset_ns = a.trace->beginNs() - b.trace->beginNs();
  std::string why;
  if (step >= as.size()) why += "A has " + std::to_string(as.size()) + " step(s)";
  if (step >= bs.size()) why += std::string(why.empty() ? "" : ", ") + "B has " + std::to_string(bs.size()) + " step(s)";
  c.alignment = "trace starts (no step " + std::to_string(step + 1) + " to align on: " + why + ")";
}

}  // namespace

std::string verdictText(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::OverheadBound: return "overhead-bound";
    case VerdictKind::ComputeBound: return "compute-bound";
    case VerdictKind::Mixed: return "mixed";
    case VerdictKind::NoGpuWork: return "no GPU work";
  }
  return "?";
}

std::string TraceComparison::verdictLine() const {
  if (a_verdict.kind == b_verdict.kind) return verdictText(a_verdict.kind) + " (unchanged)";
  return verdictText(a_verdict.kind) + " -> " + verdictText(b_verdict.kind);
}

TraceComparison compareSides(const std::vector<CompareInput>& a_in, const std::vector<CompareInput>& b_in,
                             const CompareOptions& options) {
  const SideSamples a = collect(a_in), b = collect(b_in);
  TraceComparison c;
  c.a_traces = a.traces, c.b_traces = b.traces;
  c.a_steps = a.profiler_steps, c.b_steps = b.profiler_steps;
  c.a_samples = a.steps.size(), c.b_samples = b.steps.size();
  c.a_verdict = decideVerdict(a.utilization, a.idle, a.gpu_ops);
  c.b_verdict = decideVerdict(b.utilization, b.idle, b.gpu_ops);
  const bool a_gpu = a.gpu_ops > 0, b_gpu = b.gpu_ops > 0;
  const bool from_steps = a.profiler_steps > 0 && b.profiler_steps > 0;
  const std::string per = from_steps ? " / step" : " / step (or trace)";

  auto row = [&](std::string metric, CompareUnit unit, auto get, bool needs_gpu, const char* higher,
                 const char* lower, bool lower_is_better = true) {
    CompareRow r;
    r.metric = std::move(metric);
    r.unit = unit;
    r.lower_is_better = lower_is_better;
    r.higher_word = higher, r.lower_word = lower;
    const std::vector<double> va = (!needs_gpu || a_gpu) ? values(a, get) : std::vector<double>{};
    const std::vector<double> vb = (!needs_gpu || b_gpu) ? values(b, get) : std::vector<double>{};
    r.a_stats = summarizeSamples(va);
    r.b_stats = summarizeSamples(vb);
    if (!va.empty()) r.a = r.a_stats.median;
    if (!vb.empty()) r.b = r.b_stats.median;
    r.noise = compareSamples(va, vb);
    c.rows.push_back(std::move(r));
  };
  using S = const StepSample&;
  using O = std::optional<double>;
  row("kernels" + per, CompareUnit::Count, [](S s) -> O { return s.kernels; }, true, "more", "fewer");
  row("GPU ops" + per, CompareUnit::Count, [](S s) -> O { return s.gpu_ops; }, true, "more", "fewer");
  row("launches" + per, CompareUnit::Count, [](S s) -> O { return s.launches; }, true, "more", "fewer");
  row("GPU busy" + per, CompareUnit::Nanoseconds, [](S s) -> O { return s.gpu_busy_ns; }, true, "slower", "faster");
  row("CPU dispatch" + per, CompareUnit::Nanoseconds, [](S s) -> O { return s.cpu_dispatch_ns; }, false, "slower",
      "faster");
  row("wall time" + per, CompareUnit::Nanoseconds, [](S s) -> O { return s.wall_ns; }, false, "slower", "faster");
  row("GPU utilization", CompareUnit::Fraction, [](S s) -> O { return s.utilization; }, true, "higher", "lower",
      false);
  row("idle: host wait" + per, CompareUnit::Nanoseconds, [](S s) -> O { return s.host_wait_ns; }, true, "more",
      "less");
  row("idle: kernel wait" + per, CompareUnit::Nanoseconds, [](S s) -> O { return s.kernel_wait_ns; }, true, "more",
      "less");
  row("idle: other" + per, CompareUnit::Nanoseconds, [](S s) -> O { return s.other_idle_ns; }, true, "more", "less");
  row("mean launch delay", CompareUnit::Nanoseconds, [](S s) -> O { return s.mean_launch_delay_ns; }, true, "longer",
      "shorter");

  c.kernels = kernelRows(a, b);
  align(c, a_in.front(), b_in.front(), options.align_step);
  return c;
}

TraceComparison compareTraces(const Trace& a, const TraceAnalysis& aa, const Trace& b, const TraceAnalysis& ba,
                              const CompareOptions& options) {
  return compareSides({{&a, &aa}}, {{&b, &ba}}, options);
}

}  // namespace fuselab
