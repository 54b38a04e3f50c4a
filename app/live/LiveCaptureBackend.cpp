// The capture backend linked into this build: our workloads (kernels/) and
// the collectors (profiling/capture/). The only place the app meets them.
#include <ATen/Context.h>

#include <memory>

#include "kernels/WorkloadRegistry.h"
#include "profiling/capture/Capture.h"
#include "profiling/capture/SystemQuery.h"
#include "profiling/capture_api/CaptureBackend.h"

namespace fuselab {
namespace {

class LiveCaptureBackend final : public CaptureBackend {
 public:
  std::vector<WorkloadInfo> workloads() override { return listWorkloads(); }

  std::unique_ptr<Workload> makeWorkload(const WorkloadParams& params) override {
    return fuselab::makeWorkload(params);
  }

  CaptureResult capture(const CaptureTarget& target, const CaptureOptions& options,
                        CaptureProgress* progress) override {
    return runCapture(target, options, progress);
  }

  SystemInfo systemInfo() override { return querySystemInfo(); }

  bool gpuAvailable() override { return at::hasCUDA(); }
};

}  // namespace

CaptureBackend& captureBackend() {
  static LiveCaptureBackend backend;
  return backend;
}

}  // namespace fuselab
