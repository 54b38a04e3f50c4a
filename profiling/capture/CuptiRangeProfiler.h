// One forward under CUPTI's range profiler: auto range (one range per kernel)
// and kernel replay (each kernel is run as often as its metrics need, with
// its memory restored in between), so the forward's timing means nothing and
// it must run apart from the recorded steps.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "profiling/capture/CuptiCounterMetrics.h"

namespace fuselab::cupti {

struct KernelRange {
  std::string name;            // as CUPTI names the range (the kernel's, demangled)
  std::vector<double> values;  // one per RangeProfile::metrics.names()
};

struct RangeProfile {
  CounterMetrics metrics;
  std::vector<KernelRange> ranges;  // in launch order
};

// Runs `forward` (which ends with a device synchronize) once under the range
// profiler on the calling thread's CUDA context, for at most `max_ranges`
// kernels. nullopt with `why` when counters cannot be read (no GPU, no
// permission, unsupported chip, another profiler active, ...).
std::optional<RangeProfile> profileKernelRanges(const std::function<void()>& forward, size_t max_ranges,
                                                std::string* why);

}  // namespace fuselab::cupti
