// The one seam between the app and live capture. Everything the window and
// the command line do with workloads and captures goes through this
// interface: building a workload, recording forwards of it, and what the
// machine runs (which workloads exist is data: WorkloadCatalog.h). The app
// never includes kernels/ or profiling/capture/: the backend lives in the
// capture module (app/live/, a shared library with LibTorch, CUDA and CUPTI)
// that the app opens at run time, when the first capture starts.
#pragma once

#include <memory>

#include "profiling/capture_api/CaptureTypes.h"
#include "profiling/capture_api/SystemInfo.h"
#include "profiling/capture_api/Workload.h"

namespace fuselab {

class CaptureBackend {
 public:
  virtual ~CaptureBackend() = default;

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
  // How many CUDA GPUs this process sees (0 without CUDA).
  virtual int gpuCount() = 0;

  // Dense GEMM peaks and copy bandwidth of GPU 0, measured now (a few
  // seconds). Throws CaptureError when there is no usable GPU.
  virtual CeilingMeasurement measureCeilings() = 0;
};

// The process's capture backend: loads the capture module on first use.
// Throws CaptureError with a message for people when capture is not
// available (the module or one of its libraries is missing).
CaptureBackend& captureBackend();

// The capture module's one export: extern "C" CaptureBackend*
// fuselab_capture_module(int abi, const char* fuselab_version). It returns its
// backend (alive until the process ends), or nullptr when the app's `abi` or
// version are not the ones the module was built with: the types above cross
// the boundary, so both sides must be built from the same sources, with the
// same compiler and flags. Raise kCaptureModuleAbi when this interface or the
// types it passes change.
inline constexpr int kCaptureModuleAbi = 3;
inline constexpr const char* kCaptureModuleEntry = "fuselab_capture_module";
using CaptureModuleEntry = CaptureBackend* (*)(int abi, const char* fuselab_version);

}  // namespace fuselab
