// The verdict: overhead-bound when the GPU is mostly idle and the idle time
// is mostly host wait; compute-bound when the GPU is busy most of the span.
#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/DurationText.h"

namespace fuselab {

std::string_view verdictName(VerdictKind k) {
  switch (k) {
    case VerdictKind::OverheadBound: return "overhead_bound";
    case VerdictKind::ComputeBound: return "compute_bound";
    case VerdictKind::Mixed: return "mixed";
    case VerdictKind::NoGpuWork: return "no_gpu_work";
  }
  return "mixed";
}

Verdict decideVerdict(const Utilization& utilization, const IdleBreakdown& idle, uint64_t gpu_op_count) {
  Verdict v;
  v.utilization = utilization.fraction;
  v.host_wait_share = idle.hostWaitShare();
  if (gpu_op_count == 0) {
    v.kind = VerdictKind::NoGpuWork;
    v.explanation = "No GPU work (kernels, memcpy, memset) in the captured span of " +
                    formatDuration(utilization.span_ns) + ": nothing to judge.";
    return v;
  }
  const std::string busy = "The GPU is busy " + formatPercent(v.utilization) + " of the captured span (" +
                           formatDuration(utilization.busy_ns) + " of " + formatDuration(utilization.span_ns) + ")";
  const std::string idle_text = formatPercent(v.host_wait_share) + " of the " + formatDuration(idle.totalNs()) +
                                " of idle time between GPU ops is host wait (the CPU launched the next op after "
                                "the GPU had finished the previous one)";
  if (v.utilization >= Verdict::kHighUtilization) {
    v.kind = VerdictKind::ComputeBound;
    v.explanation = busy + " (at least " + formatPercent(Verdict::kHighUtilization) +
                    "): compute-bound. Faster kernels or less memory traffic (fusion) help; launch overhead "
                    "matters little.";
  } else if (v.utilization < Verdict::kLowUtilization && v.host_wait_share >= Verdict::kHostWaitDominates) {
    v.kind = VerdictKind::OverheadBound;
    v.explanation = busy + ", and " + idle_text +
                    ": overhead-bound. Fewer launches (fusion, CUDA graphs) or less CPU work per op help more "
                    "than faster kernels.";
  } else {
    v.kind = VerdictKind::Mixed;
    v.explanation = busy + "; " + idle_text + ". Neither launch overhead nor GPU work clearly dominates: mixed.";
  }
  return v;
}

}  // namespace fuselab
