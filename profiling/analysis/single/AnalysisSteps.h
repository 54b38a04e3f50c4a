// Per-step figures from ProfilerStep#k annotations (AnalysisSteps.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiling/analysis/work/Roofline.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct StepStats {
  int index = 0;       // k in ProfilerStep#k
  std::string name;    // "ProfilerStep#k"
  EventRef annotation;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint64_t kernels = 0;   // kernels attributed to the step (by launch call time)
  uint64_t gpu_ops = 0;   // kernels + memcpy + memset
  uint64_t launches = 0;  // launch calls in the step that enqueued GPU work
  int64_t gpu_busy_ns = 0;      // union of the step's GPU op intervals
  int64_t cpu_dispatch_ns = 0;  // union of cpu_op intervals inside the step
  int64_t wall_ns = 0;          // end - start
  // Step start -> first GPU op start of the step (-1 when it has none): the
  // "dead window" of a cold first step.
  int64_t first_gpu_op_offset_ns = -1;
  // Work of the step's GPU ops (host copies left out), filled by analyzeTrace.
  RooflineFigures roofline;
};

// Sorted by start time. Empty when the trace has no ProfilerStep#k.
std::vector<StepStats> computeSteps(const Trace& trace);

// k of "ProfilerStep#k", or nullopt for any other name.
std::optional<int> profilerStepIndex(std::string_view name);

// The ProfilerStep#k annotations on CPU tracks, sorted by start time.
std::vector<EventRef> findProfilerSteps(const Trace& trace);

}  // namespace fuselab
