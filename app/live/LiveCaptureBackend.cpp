// The capture module (libfuselab_capture_module.so): our workloads (kernels/)
// and the collectors (profiling/capture/) behind the CaptureBackend interface.
// The app opens it at run time (app/capture/CaptureModule.cpp) and reaches it only
// through the one function exported here.
#include <ATen/Context.h>

#include <cstring>
#include <memory>

#include "kernels/CeilingBenchmarks.h"
#include "kernels/WorkloadRegistry.h"
#include "profiling/capture/Capture.h"
#include "profiling/capture/SystemQuery.h"
#include "profiling/capture_api/CaptureBackend.h"

namespace fuselab {
namespace {

class LiveCaptureBackend final : public CaptureBackend {
 public:
  std::unique_ptr<Workload> makeWorkload(const WorkloadParams& params) override {
    return fuselab::makeWorkload(params);
  }

  CaptureResult capture(const CaptureTarget& target, const CaptureOptions& options,
                        CaptureProgress* progress) override {
    return runCapture(target, options, progress);
  }

  SystemInfo systemInfo() override { return querySystemInfo(); }

  bool gpuAvailable() override { return at::hasCUDA(); }

  int gpuCount() override { return at::hasCUDA() ? static_cast<int>(at::getNumGPUs()) : 0; }

  CeilingMeasurement measureCeilings() override {
    try {
      return fuselab::measureCeilings();
    } catch (const WorkloadError& e) {
      throw CaptureError(e.what());
    }
  }
};

}  // namespace
}  // namespace fuselab

// The module's only exported symbol (LiveCaptureModule.map hides the rest).
extern "C" fuselab::CaptureBackend* fuselab_capture_module(int abi, const char* fuselab_version) {
  static_assert(std::is_same_v<decltype(&fuselab_capture_module), fuselab::CaptureModuleEntry>);
  if (abi != fuselab::kCaptureModuleAbi || !fuselab_version || std::strcmp(fuselab_version, FUSELAB_VERSION) != 0)
    return nullptr;
  static fuselab::LiveCaptureBackend backend;
  return &backend;
}
