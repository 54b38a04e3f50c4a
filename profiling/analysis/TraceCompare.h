// A/B comparison of two analysed traces (e.g. eager MLP vs fused MLP): a diff
// table of per-step figures (kernels, launches, GPU busy, CPU dispatch, wall
// time), utilization and idle time by cause, a per-kernel-name table, and the
// time offset that aligns B's chosen step with A's. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiling/analysis/Analysis.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

enum class CompareUnit : uint8_t { Count, Nanoseconds, Fraction };

struct CompareRow {
  std::string metric;  // "kernels / step"
  CompareUnit unit = CompareUnit::Count;
  std::optional<double> a;  // absent: the trace lacks what the figure needs (no steps, no GPU work)
  std::optional<double> b;
  bool lower_is_better = true;

  // b - a, and b / a (absent when a side is missing or a is 0).
  std::optional<double> delta() const;
  std::optional<double> ratio() const;
};

// One kernel (or memcpy/memset) name in either trace.
struct CompareKernelRow {
  std::string name;
  Category category = Category::Kernel;
  double a_per_step = 0;  // count per step (per trace when a side has no steps)
  double b_per_step = 0;
  int64_t a_total_ns = 0;
  int64_t b_total_ns = 0;
};

struct CompareOptions {
  size_t align_step = 0;  // 0-based ordinal (in time order) of the step to align on
};

struct TraceComparison {
  std::vector<CompareRow> rows;
  std::vector<CompareKernelRow> kernels;  // by max(a_total, b_total) descending
  // Add to a B time to place it on A's axis: A's aligned step start minus
  // B's (trace begins when a side has no such step).
  int64_t b_offset_ns = 0;
  bool aligned_on_step = false;  // both traces have step `align_step`
  std::string alignment;         // for people: "ProfilerStep#3 (A) with ProfilerStep#5 (B)"
  size_t a_steps = 0;
  size_t b_steps = 0;
};

// Per-step figures are means over the steps. `a_analysis` must be
// analyzeTrace(a), likewise for b.
TraceComparison compareTraces(const Trace& a, const TraceAnalysis& a_analysis, const Trace& b,
                              const TraceAnalysis& b_analysis, const CompareOptions& options = {});

// The table as aligned text columns: metric, A, B, delta, ratio.
std::string comparisonText(const TraceComparison& c, const std::string& a_label, const std::string& b_label,
                           size_t max_kernel_rows = 12);

// A ratio for people: "0.42x", "12.5x", "0.000219x".
std::string formatRatio(double ratio);

// A value in the row's unit for people: "5", "263 us", "41.2%".
std::string formatCompareValue(CompareUnit unit, std::optional<double> v);

}  // namespace fuselab
