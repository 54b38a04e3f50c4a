// `compare --repeat N`: each side's workload captured N more times live, so a
// side's spread comes from fresh runs, not from one capture's steps alone.
// The workload and its sizes come from the side's first trace (the
// "fuselabWorkload" field a fuselab capture writes); the repeats record as
// many steps as that trace has.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "profiling/capture_api/CaptureTypes.h"
#include "profiling/capture_api/WorkloadParams.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

// Why a side cannot be repeated, for the command line.
class RepeatUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RepeatPlan {
  WorkloadParams params;
  CaptureOptions options;
};

// The capture to repeat for a side whose first trace is `trace`, which has
// `steps` recorded steps (`path` names it in messages). Throws RepeatUnavailable when the trace was not captured
// by fuselab, or is a multi-process run.
RepeatPlan repeatPlanFor(const Trace& trace, size_t steps, const std::string& path);

// Captures `plan` `count` times, calling `captured(k, trace)` after each (k
// from 1). Captures go through the capture module; its exceptions
// (CaptureUnavailable, WorkloadError, CaptureError...) pass through.
void captureRepeats(const RepeatPlan& plan, int count,
                    const std::function<void(int, std::shared_ptr<Trace>)>& captured);

}  // namespace fuselab
