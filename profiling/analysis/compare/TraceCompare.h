// A/B comparison of two sides (e.g. eager MLP vs fused MLP), each one or more
// analysed traces of the same workload: every recorded step of every trace of
// a side is one sample. Per metric (kernels, launches, GPU busy, CPU dispatch,
// wall time, utilization, idle time by cause, launch delay) and per matched
// GPU op (TraceCompareKernels.h) it gives each side's median and spread and
// whether the difference is beyond noise (NoiseTest.h), how the verdict
// changed, and the time offset that aligns B's chosen step with A's (first
// trace of each side). Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/compare/NoiseTest.h"
#include "profiling/analysis/compare/TraceCompareKernels.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

enum class CompareUnit : uint8_t { Count, Nanoseconds, Fraction };

struct CompareRow {
  std::string metric;  // "kernels / step"
  CompareUnit unit = CompareUnit::Count;
  std::optional<double> a;  // median; absent: the side lacks what the figure needs (no GPU work)
  std::optional<double> b;
  SampleSummary a_stats, b_stats;  // n == 0 when absent
  NoiseTestResult noise;
  bool lower_is_better = true;
  const char* higher_word = "higher";  // what B's higher median is called: "slower", "more"
  const char* lower_word = "lower";

  // b - a, and b / a (absent when a side is missing or a is 0).
  std::optional<double> delta() const;
  std::optional<double> ratio() const;
};

// One matched GPU op slot (same launching op, shapes and order) of either side.
struct CompareKernelRow {
  KernelSlotKey key;
  std::string label;   // kernelSlotLabel(key)
  std::string a_name;  // the most frequent GPU op name in the slot on each side ("" when absent)
  std::string b_name;
  Category category = Category::Kernel;
  double a_per_step = 0;  // occurrences per sample
  double b_per_step = 0;
  SampleSummary a_stats, b_stats;  // durations (ns) of the occurrences
  NoiseTestResult noise;

  bool renamed() const { return !a_name.empty() && !b_name.empty() && a_name != b_name; }
};

struct CompareOptions {
  size_t align_step = 0;  // 0-based ordinal (in time order) of the step to align on
};

struct CompareInput {
  const Trace* trace = nullptr;
  const TraceAnalysis* analysis = nullptr;  // analyzeTrace(*trace)
};

struct TraceComparison {
  std::vector<CompareRow> rows;
  std::vector<CompareKernelRow> kernels;  // by max(median A, median B) descending
  // Add to a B time to place it on A's axis: A's aligned step start minus
  // B's (trace begins when a side has no such step). First trace of each side.
  int64_t b_offset_ns = 0;
  bool aligned_on_step = false;  // both traces have step `align_step`
  std::string alignment;         // for people: "ProfilerStep#3 (A) with ProfilerStep#5 (B)"
  size_t a_traces = 0, b_traces = 0;
  size_t a_steps = 0, b_steps = 0;      // ProfilerStep#k over all traces of the side
  size_t a_samples = 0, b_samples = 0;  // steps, or one per trace without steps
  // Of each side's pooled figures (utilization and idle time summed over its traces).
  Verdict a_verdict, b_verdict;
  std::string verdictLine() const;  // "overhead-bound -> compute-bound" or "compute-bound (unchanged)"
};

// Both sides need at least one trace (std::invalid_argument otherwise).
TraceComparison compareSides(const std::vector<CompareInput>& a, const std::vector<CompareInput>& b,
                             const CompareOptions& options = {});
// One trace per side.
TraceComparison compareTraces(const Trace& a, const TraceAnalysis& a_analysis, const Trace& b,
                              const TraceAnalysis& b_analysis, const CompareOptions& options = {});

// "faster (beyond noise)", "within noise", "same", "too few samples".
std::string changeLabel(const NoiseTestResult& noise, const char* higher_word, const char* lower_word);
inline std::string changeLabel(const CompareRow& r) {
  return r.a && r.b ? changeLabel(r.noise, r.higher_word, r.lower_word) : "n/a";
}
// Kernel rows: also "only in A" / "only in B".
std::string changeLabel(const CompareKernelRow& k);

// "overhead-bound", "compute-bound", "mixed", "no GPU work".
std::string verdictText(VerdictKind kind);

// The tables as aligned text: metric, A and B (median [min - max]), delta,
// ratio, change; the verdict line; the matched GPU ops.
std::string comparisonText(const TraceComparison& c, const std::string& a_label, const std::string& b_label,
                           size_t max_kernel_rows = 12);

// A ratio for people: "0.42x", "12.5x", "0.000219x".
std::string formatRatio(double ratio);

// A value in the row's unit for people: "5", "263 us", "41.2%".
std::string formatCompareValue(CompareUnit unit, std::optional<double> v);
// "263 us [251 us - 270 us]", or the value alone when the side has one sample.
std::string formatCompareSpread(CompareUnit unit, const SampleSummary& s);

}  // namespace fuselab
