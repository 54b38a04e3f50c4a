// The samples a comparison is built from: one set of figures per recorded
// step (a trace without ProfilerStep#k annotations is one sample spanning the
// analysis scope). Idle gaps and launch delays are given to the step their
// next op's launch call (the delayed op's launch call) started in, so a
// trace's per-step idle times add up to its analysis totals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct StepSample {
  double kernels = 0, gpu_ops = 0, launches = 0;
  double gpu_busy_ns = 0, cpu_dispatch_ns = 0, wall_ns = 0;
  double utilization = 0;  // gpu busy / wall
  double host_wait_ns = 0, kernel_wait_ns = 0, other_idle_ns = 0;
  std::optional<double> mean_launch_delay_ns;  // absent when no GPU op of the step has its launch captured
};

// `analysis` must be analyzeTrace(trace).
std::vector<StepSample> stepSamples(const Trace& trace, const TraceAnalysis& analysis);

// The ordinal of the step containing `time_ns` (the last one starting at or
// before it, if it has not ended), or nullopt.
std::optional<size_t> stepOrdinalAt(const std::vector<StepStats>& steps, int64_t time_ns);

}  // namespace fuselab
