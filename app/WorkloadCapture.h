// A live capture of one workload: builds it from WorkloadParams (eager or as a
// CUDA graph) and runs profiling's capture on it. The bridge between kernels/
// (which knows workloads) and profiling/ (which knows capturing).
#pragma once

#include "profiling/capture_api/CaptureTypes.h"
#include "profiling/capture_api/Workload.h"

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

}  // namespace fuselab
