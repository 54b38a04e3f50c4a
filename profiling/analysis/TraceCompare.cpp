#include "profiling/analysis/TraceCompare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "profiling/analysis/Expectations.h"
#include "profiling/trace/DurationText.h"

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

// Per-step means; a trace without ProfilerStep#k counts as one step spanning
// the analysis scope.
struct StepFigures {
  size_t steps = 0;
  bool from_steps = false;
  double kernels = 0, gpu_ops = 0, launches = 0;
  double gpu_busy_ns = 0, cpu_dispatch_ns = 0, wall_ns = 0;
  double host_wait_ns = 0, kernel_wait_ns = 0, other_idle_ns = 0;
};

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

StepFigures stepFigures(const Trace& trace, const TraceAnalysis& a) {
  StepFigures f;
  if (!a.steps.empty()) {
    f.from_steps = true;
    f.steps = a.steps.size();
    for (const StepStats& s : a.steps) {
      f.kernels += double(s.kernels);
      f.gpu_ops += double(s.gpu_ops);
      f.launches += double(s.launches);
      f.gpu_busy_ns += double(s.gpu_busy_ns);
      f.cpu_dispatch_ns += double(s.cpu_dispatch_ns);
      f.wall_ns += double(s.wall_ns);
    }
  } else {
    f.steps = 1;
    f.kernels = double(a.kernel_count);
    f.gpu_ops = double(a.gpu_op_count);
    for (const LaunchLink& l : trace.launches())
      if (l.launch && !l.gpu_ops.empty()) f.launches += 1;
    f.gpu_busy_ns = double(a.utilization.busy_ns);
    f.cpu_dispatch_ns = double(cpuOpUnionNs(trace, a.scope.start_ns, a.scope.end_ns));
    f.wall_ns = double(a.scope.spanNs());
  }
  f.host_wait_ns = double(a.idle.host_wait_ns);
  f.kernel_wait_ns = double(a.idle.kernel_wait_ns);
  f.other_idle_ns = double(a.idle.other_ns);
  const double n = double(f.steps);
  for (double* v : {&f.kernels, &f.gpu_ops, &f.launches, &f.gpu_busy_ns, &f.cpu_dispatch_ns, &f.wall_ns,
                    &f.host_wait_ns, &f.kernel_wait_ns, &f.other_idle_ns})
    *v /= n;
  return f;
}

std::optional<int64_t> stepStart(const TraceAnalysis& a, size_t ordinal) {
  if (ordinal >= a.steps.size()) return std::nullopt;
  return a.steps[ordinal].start_ns;
}

std::string pad(const std::string& s, size_t width, bool right) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

}  // namespace

std::string formatRatio(double r) {
  char buf[32];
  const double a = std::fabs(r);
  if (a != 0 && (a < 0.01 || a >= 100))
    std::snprintf(buf, sizeof buf, "%.3gx", r);
  else
    std::snprintf(buf, sizeof buf, "%.2fx", r);
  return buf;
}

std::string formatCompareValue(CompareUnit unit, std::optional<double> v) {
  if (!v) return "n/a";
  char buf[48];
  switch (unit) {
    case CompareUnit::Count:
      if (*v == std::floor(*v) && std::fabs(*v) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", *v);
      else std::snprintf(buf, sizeof buf, "%.2f", *v);
      return buf;
    case CompareUnit::Nanoseconds: return formatDuration(int64_t(std::llround(*v)));
    case CompareUnit::Fraction: return formatPercent(*v);
  }
  return "?";
}

TraceComparison compareTraces(const Trace& a, const TraceAnalysis& aa, const Trace& b, const TraceAnalysis& ba,
                              const CompareOptions& options) {
  TraceComparison c;
  c.a_steps = aa.steps.size();
  c.b_steps = ba.steps.size();
  const StepFigures fa = stepFigures(a, aa), fb = stepFigures(b, ba);
  const bool a_gpu = aa.gpu_op_count > 0, b_gpu = ba.gpu_op_count > 0;

  auto row = [&](std::string metric, CompareUnit unit, double va, double vb, bool lower_is_better, bool needs_gpu) {
    CompareRow r;
    r.metric = std::move(metric);
    r.unit = unit;
    if (!needs_gpu || a_gpu) r.a = va;
    if (!needs_gpu || b_gpu) r.b = vb;
    r.lower_is_better = lower_is_better;
    c.rows.push_back(std::move(r));
  };
  const std::string per = (fa.from_steps && fb.from_steps) ? " / step" : " / step (or trace)";
  row("steps", CompareUnit::Count, double(c.a_steps), double(c.b_steps), false, false);
  row("kernels" + per, CompareUnit::Count, fa.kernels, fb.kernels, true, true);
  row("GPU ops" + per, CompareUnit::Count, fa.gpu_ops, fb.gpu_ops, true, true);
  row("launches" + per, CompareUnit::Count, fa.launches, fb.launches, true, true);
  row("GPU busy" + per, CompareUnit::Nanoseconds, fa.gpu_busy_ns, fb.gpu_busy_ns, true, true);
  row("CPU dispatch" + per, CompareUnit::Nanoseconds, fa.cpu_dispatch_ns, fb.cpu_dispatch_ns, true, false);
  row("wall time" + per, CompareUnit::Nanoseconds, fa.wall_ns, fb.wall_ns, true, false);
  row("GPU utilization", CompareUnit::Fraction, aa.utilization.fraction, ba.utilization.fraction, false, true);
  row("idle: host wait" + per, CompareUnit::Nanoseconds, fa.host_wait_ns, fb.host_wait_ns, true, true);
  row("idle: kernel wait" + per, CompareUnit::Nanoseconds, fa.kernel_wait_ns, fb.kernel_wait_ns, true, true);
  row("idle: other" + per, CompareUnit::Nanoseconds, fa.other_idle_ns, fb.other_idle_ns, true, true);
  row("mean launch delay", CompareUnit::Nanoseconds, aa.launch_delay_summary.mean_ns, ba.launch_delay_summary.mean_ns,
      true, true);

  // Kernel names over both traces.
  std::map<std::pair<std::string, Category>, CompareKernelRow> by_name;
  auto addRows = [&](const TraceAnalysis& an, double steps, bool is_a) {
    for (const KernelRow& k : an.kernels) {
      CompareKernelRow& r = by_name[{k.name, k.category}];
      r.name = k.name;
      r.category = k.category;
      (is_a ? r.a_per_step : r.b_per_step) = double(k.count) / steps;
      (is_a ? r.a_total_ns : r.b_total_ns) = k.total_ns;
    }
  };
  addRows(aa, double(fa.steps), true);
  addRows(ba, double(fb.steps), false);
  for (auto& [key, r] : by_name) c.kernels.push_back(std::move(r));
  std::sort(c.kernels.begin(), c.kernels.end(), [](const CompareKernelRow& x, const CompareKernelRow& y) {
    int64_t mx = std::max(x.a_total_ns, x.b_total_ns), my = std::max(y.a_total_ns, y.b_total_ns);
    return mx != my ? mx > my : x.name < y.name;
  });

  // Alignment.
  const auto sa = stepStart(aa, options.align_step), sb = stepStart(ba, options.align_step);
  const std::string ordinal = "step " + std::to_string(options.align_step + 1);
  if (sa && sb) {
    c.aligned_on_step = true;
    c.b_offset_ns = *sa - *sb;
    c.alignment = aa.steps[options.align_step].name + " (A) with " + ba.steps[options.align_step].name + " (B)";
  } else {
    c.b_offset_ns = a.beginNs() - b.beginNs();
    std::string why;
    if (!sa) why += "A has " + std::to_string(c.a_steps) + " step(s)";
    if (!sb) why += std::string(why.empty() ? "" : ", ") + "B has " + std::to_string(c.b_steps) + " step(s)";
    c.alignment = "trace starts (no " + ordinal + " to align on: " + why + ")";
  }
  return c;
}

std::string comparisonText(const TraceComparison& c, const std::string& a_label, const std::string& b_label,
                           size_t max_kernel_rows) {
  std::string out;
  out += "A: " + a_label + "\nB: " + b_label + "\n";
  out += "aligned on " + c.alignment + "\n\n";

  struct Line {
    std::string cols[5];
  };
  std::vector<Line> lines;
  lines.push_back({{"metric", "A", "B", "B - A", "B / A"}});
  for (const CompareRow& r : c.rows) {
    Line l;
    l.cols[0] = r.metric;
    l.cols[1] = formatCompareValue(r.unit, r.a);
    l.cols[2] = formatCompareValue(r.unit, r.b);
    if (auto d = r.delta()) {
      std::string v = formatCompareValue(r.unit == CompareUnit::Fraction ? CompareUnit::Fraction : r.unit, std::fabs(*d));
      l.cols[3] = (*d > 0 ? "+" : *d < 0 ? "-" : "") + v;
    } else {
      l.cols[3] = "n/a";
    }
    if (auto q = r.ratio()) {
      l.cols[4] = formatRatio(*q);
    } else {
      l.cols[4] = "n/a";
    }
    lines.push_back(std::move(l));
  }
  size_t w[5] = {0, 0, 0, 0, 0};
  for (const Line& l : lines)
    for (int i = 0; i < 5; ++i) w[i] = std::max(w[i], l.cols[i].size());
  for (const Line& l : lines) {
    out += pad(l.cols[0], w[0], false);
    for (int i = 1; i < 5; ++i) out += "  " + pad(l.cols[i], w[i], true);
    out += "\n";
  }

  if (!c.kernels.empty()) {
    out += "\nGPU ops by name (count per step, total time):\n";
    size_t shown = 0;
    for (const CompareKernelRow& k : c.kernels) {
      if (shown++ == max_kernel_rows) {
        out += "  ... " + std::to_string(c.kernels.size() - max_kernel_rows) + " more\n";
        break;
      }
      char counts[64];
      std::snprintf(counts, sizeof counts, "%6.2f | %6.2f", k.a_per_step, k.b_per_step);
      const std::string name = shortKernelName(k.name, 90);
      out += "  " + std::string(counts) + "  " + pad(formatDuration(k.a_total_ns), 9, true) + " | " +
             pad(formatDuration(k.b_total_ns), 9, true) + "  " + name + "\n";
    }
  }
  return out;
}

}  // namespace fuselab
