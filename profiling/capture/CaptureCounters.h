// The counter pass of `capture --counters`: after the recorded steps and
// after activity tracing has stopped, one more forward under CUPTI's range
// profiler (CuptiRangeProfiler.h), its per-kernel DRAM bytes and tensor pipe
// activity put on the last recorded step's kernels (KernelCounterMatch.h).
#pragma once

#include "profiling/capture_api/CaptureTypes.h"

namespace fuselab {

// Reads the counters into result.trace. When they cannot be read (no GPU, no
// permission, unsupported chip, CUPTI busy, kernels that do not match) adds
// one message saying why to result.messages and the trace's warnings; the
// capture stands either way.
void addMeasuredCounters(const CaptureTarget& target, CaptureResult& result);

// The message for counters that could not be read.
std::string countersUnavailableMessage(const std::string& why);

}  // namespace fuselab
