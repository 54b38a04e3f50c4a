// The comparison for people: value formats, change labels and the text tables
// `fuselab compare` prints.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "profiling/analysis/common/KernelNames.h"
#include "profiling/analysis/compare/TraceCompare.h"
#include "profiling/trace/DurationText.h"

namespace fuselab {

namespace {

std::string pad(const std::string& s, size_t width, bool right) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

std::string signedDelta(CompareUnit unit, double d) {
  return (d > 0 ? "+" : d < 0 ? "-" : "") + formatCompareValue(unit, std::fabs(d));
}

// Columns padded to their widest cell; the first left-aligned, the rest right.
std::string columns(const std::vector<std::vector<std::string>>& lines, const std::string& indent = "") {
  std::vector<size_t> w;
  for (const auto& l : lines) {
    w.resize(std::max(w.size(), l.size()), 0);
    for (size_t i = 0; i < l.size(); ++i) w[i] = std::max(w[i], l[i].size());
  }
  std::string out;
  for (const auto& l : lines) {
    std::string line = indent;
    for (size_t i = 0; i < l.size(); ++i) line += (i ? "  " : "") + pad(l[i], w[i], i > 0 && i + 1 < l.size());
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string sideLine(size_t traces, size_t steps, size_t samples) {
  return std::to_string(traces) + " trace(s), " + std::to_string(steps) + " step(s), " + std::to_string(samples) +
         " sample(s)";
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

std::string formatCompareSpread(CompareUnit unit, const SampleSummary& s) {
  if (s.n == 0) return "n/a";
  const std::string median = formatCompareValue(unit, s.median);
  if (s.n == 1 || s.min == s.max) return median;
  return median + " [" + formatCompareValue(unit, s.min) + " - " + formatCompareValue(unit, s.max) + "]";
}

std::string changeLabel(const NoiseTestResult& noise, const char* higher_word, const char* lower_word) {
  switch (noise.outcome) {
    case NoiseOutcome::Same: return "same";
    case NoiseOutcome::WithinNoise: return "within noise";
    case NoiseOutcome::Higher: return std::string(higher_word) + " (beyond noise)";
    case NoiseOutcome::Lower: return std::string(lower_word) + " (beyond noise)";
    case NoiseOutcome::TooFewSamples: return "too few samples";
  }
  return "?";
}

std::string changeLabel(const CompareKernelRow& k) {
  if (k.b_stats.n == 0) return "only in A";
  if (k.a_stats.n == 0) return "only in B";
  return changeLabel(k.noise, "slower", "faster");
}

std::string comparisonText(const TraceComparison& c, const std::string& a_label, const std::string& b_label,
                           size_t max_kernel_rows) {
  std::string out;
  out += "A: " + a_label + " (" + sideLine(c.a_traces, c.a_steps, c.a_samples) + ")\n";
  out += "B: " + b_label + " (" + sideLine(c.b_traces, c.b_steps, c.b_samples) + ")\n";
  out += "aligned on " + c.alignment + "\n";
  out += "noise rule: " + std::string(NoiseRule::description()) + "\n\n";

  std::vector<std::vector<std::string>> lines;
  lines.push_back({"metric", "A median [min - max]", "B median [min - max]", "B - A", "B / A", "change"});
  for (const CompareRow& r : c.rows) {
    const auto d = r.delta();
    const auto q = r.ratio();
    lines.push_back({r.metric, formatCompareSpread(r.unit, r.a_stats), formatCompareSpread(r.unit, r.b_stats),
                     d ? signedDelta(r.unit, *d) : "n/a", q ? formatRatio(*q) : "n/a", changeLabel(r)});
  }
  out += columns(lines);
  out += "verdict: " + c.verdictLine() + "\n";

  if (!c.kernels.empty()) {
    out += "\nGPU ops matched by launching op, shapes and order (per step; duration median [min - max]):\n";
    std::vector<std::vector<std::string>> k_lines;
    k_lines.push_back({"op", "per step", "A", "B", "change", "kernel"});
    size_t shown = 0;
    for (const CompareKernelRow& k : c.kernels) {
      if (shown++ == max_kernel_rows) break;
      char counts[64];
      std::snprintf(counts, sizeof counts, "%.2f | %.2f", k.a_per_step, k.b_per_step);
      std::string name = shortKernelName(k.a_name.empty() ? k.b_name : k.a_name, 60);
      if (k.renamed()) name += " -> " + shortKernelName(k.b_name, 60);
      k_lines.push_back({k.label, counts,
                         formatCompareSpread(CompareUnit::Nanoseconds, k.a_stats),
                         formatCompareSpread(CompareUnit::Nanoseconds, k.b_stats), changeLabel(k), name});
    }
    out += columns(k_lines, "  ");
    if (c.kernels.size() > max_kernel_rows)
      out += "  ... " + std::to_string(c.kernels.size() - max_kernel_rows) + " more\n";
  }
  return out;
}

}  // namespace fuselab
