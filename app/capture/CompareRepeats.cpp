#include "app/capture/CompareRepeats.h"

#include "app/capture/WorkloadCapture.h"
#include "profiling/trace/DistributedInfo.h"

namespace fuselab {

RepeatPlan repeatPlanFor(const Trace& trace, size_t steps, const std::string& path) {
  std::optional<WorkloadParams> params;
  try {
    params = workloadParamsOf(trace);
  } catch (const WorkloadError& e) {
    throw RepeatUnavailable(path + ": " + e.what());
  }
  if (!params) {
    throw RepeatUnavailable(path +
                            " was not captured by fuselab (it has no fuselabWorkload field), so --repeat does not "
                            "know what to run: give several traces per side with --vs instead");
  }
  if (distributedInfoOf(trace).present) {
    throw RepeatUnavailable(path + " is one rank of a multi-process run; --repeat captures single-process "
                                   "workloads: give several run folders per side with --vs instead");
  }
  RepeatPlan plan;
  plan.params = *params;
  if (steps > 0) plan.options.steps = int(steps);
  return plan;
}

void captureRepeats(const RepeatPlan& plan, int count,
                    const std::function<void(int, std::shared_ptr<Trace>)>& captured) {
  for (int k = 1; k <= count; ++k) {
    CaptureResult result = captureWorkload(plan.params, plan.options);
    captured(k, std::make_shared<Trace>(std::move(result.trace)));
  }
}

}  // namespace fuselab
