// The verdict of one trace: overhead-bound, compute-bound or mixed
// (AnalysisVerdict.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "profiling/analysis/single/AnalysisGaps.h"
#include "profiling/analysis/single/AnalysisUtilization.h"

namespace fuselab {

enum class VerdictKind : uint8_t { OverheadBound, ComputeBound, Mixed, NoGpuWork };
std::string_view verdictName(VerdictKind k);  // "overhead_bound", "compute_bound", "mixed", "no_gpu_work"

struct Verdict {
  VerdictKind kind = VerdictKind::NoGpuWork;
  double utilization = 0;      // Utilization::fraction
  double host_wait_share = 0;  // IdleBreakdown::hostWaitShare()
  std::string explanation;     // one or two sentences with the numbers

  // Compute-bound at or above this utilization; overhead-bound below
  // kLowUtilization when host wait is at least kHostWaitDominates of idle time.
  static constexpr double kHighUtilization = 0.8;
  static constexpr double kLowUtilization = 0.5;
  static constexpr double kHostWaitDominates = 0.5;
};

Verdict decideVerdict(const Utilization& utilization, const IdleBreakdown& idle, uint64_t gpu_op_count);

}  // namespace fuselab
