// Puts counters measured in the separate counter pass (one reading per
// kernel, in launch order) onto the kernels of the last recorded step, as
// event args (trace/MeasuredCounters.h). Plain C++: testable without a GPU.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "profiling/trace/MeasuredCounters.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct KernelCounterReading {
  std::string name;  // the kernel's name as the profiler gave it (may be empty)
  MeasuredCounters counters;
};

// The kernels launched inside the last ProfilerStep#k annotation, in launch
// order (correlation id). A finalized trace; empty when it has no step.
std::vector<EventRef> lastStepKernels(const Trace& trace);

// Whether a profiler's range name and a trace's kernel name are the same
// kernel: equal, or the same function name without namespaces, template
// arguments and parameters. An empty or numeric range name carries no name
// and agrees with any kernel.
bool kernelNamesAgree(std::string_view range_name, std::string_view kernel_name);

// Writes readings[i] onto lastStepKernels(trace)[i]. When the counts or a
// name disagree nothing is written and `why` says where.
bool attachKernelCounters(Trace& trace, const std::vector<KernelCounterReading>& readings, std::string* why);

}  // namespace fuselab
