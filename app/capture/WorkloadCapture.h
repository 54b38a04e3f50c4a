// A live capture of one workload: builds it from WorkloadParams (eager or as a
// CUDA graph) and runs profiling's capture on it. The bridge between kernels/
// (which knows workloads) and profiling/ (which knows capturing).
#pragma once

#include "profiling/capture_api/CaptureTypes.h"
#include "profiling/capture_api/Workload.h"
#include "profiling/trace/Trace.h"

#include <optional>

namespace fuselab {

// What one forward of `workload` is, for runCapture. The workload must
// outlive the target.
CaptureTarget captureTarget(Workload& workload);

// Builds the workload, captures it and names the trace after it
// (meta.trace_name = its description; top-level "fuselabWorkload" = the
// parameters). CUPTI is used only for device cuda. Throws WorkloadError
// (bad parameters, no GPU), WorkloadOutOfMemory, or CaptureError.
CaptureResult captureWorkload(const WorkloadParams& params, const CaptureOptions& options,
                              CaptureProgress* progress = nullptr);

// The parameters as a JSON object (the "fuselabWorkload" field).
std::string workloadParamsJson(const WorkloadParams& params);

// The parameters a fuselab capture stored in its trace, so it can be run
// again; nullopt when the trace has no such field (captured elsewhere). Throws
// WorkloadError when the field is there but malformed.
std::optional<WorkloadParams> workloadParamsOf(const Trace& trace);

}  // namespace fuselab
