// The one seam between the app and live capture. Everything the window and
// the command line do with workloads and captures goes through this
// interface: which workloads exist, building one, recording forwards of it,
// and what the machine runs. The app itself never includes kernels/ or
// profiling/capture/, so reading and analysing traces need nothing behind
// this interface.
#pragma once

#include <memory>
#include <vector>

#include "profiling/capture_api/CaptureTypes.h"
#include "profiling/capture_api/SystemInfo.h"
#include "profiling/capture_api/Workload.h"

namespace fuselab {

class CaptureBackend {
 public:
  virtual ~CaptureBackend() = default;

  // The workloads this build can run (their parameters, variants, defaults).
  virtual std::vector<WorkloadInfo> workloads() = 0;

  // Checks the parameters (sizes, dtype on the device, memory estimate) and
  // builds the workload. Throws WorkloadError (bad parameters, no GPU) or
  // WorkloadOutOfMemory, with a message for people.
  virtual std::unique_ptr<Workload> makeWorkload(const WorkloadParams& params) = 0;

  // Records forwards of `target` on the calling thread (warm-up, steps) into
  // one Trace. Throws CaptureError for bad options or when another capture is
  // recording; exceptions from the target propagate once recording stopped.
  virtual CaptureResult capture(const CaptureTarget& target, const CaptureOptions& options,
                                CaptureProgress* progress) = 0;

  // Versions of torch, CUDA and CUPTI, and the GPU (asks the CUDA runtime).
  virtual SystemInfo systemInfo() = 0;

  // Whether a CUDA GPU is usable for workloads with device cuda.
  virtual bool gpuAvailable() = 0;
};

// The process's capture backend. Throws CaptureError with a message for
// people when capture is not available.
CaptureBackend& captureBackend();

}  // namespace fuselab
