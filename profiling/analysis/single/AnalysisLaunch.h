// Launch delay: max(0, gpu_start - (launch_start + launch_dur))
// (AnalysisLaunch.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/trace/Trace.h"

namespace fuselab {

struct LaunchDelay {
  EventRef gpu_op;
  EventRef launch;
  int64_t delay_ns = 0;
};

// One entry per GPU op (whole trace) whose launch call was captured, in
// (track, start) order of the GPU ops.
std::vector<LaunchDelay> computeLaunchDelays(const Trace& trace);

struct LaunchDelaySummary {
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t max_ns = 0;
  double mean_ns = 0;
};
LaunchDelaySummary summarizeLaunchDelays(const std::vector<LaunchDelay>& delays);

}  // namespace fuselab
