#include "kernels/CudaGraphWorkload.h"

#ifdef FUSELAB_HAVE_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "kernels/TorchWorkload.h"

namespace fuselab {

#ifdef FUSELAB_HAVE_CUDA
namespace {

constexpr int kWarmupForwards = 3;

class CudaGraphWorkload final : public TorchWorkload {
 public:
  explicit CudaGraphWorkload(std::unique_ptr<Workload> eager) : eager_(std::move(eager)) {
    translateOutOfMemory("capturing the CUDA graph", [&] {
      // Warm up on the capture stream first: cuBLAS handles, workspaces and
      // allocator blocks must exist before capture (no allocation from the
      // default pool is allowed inside it).
      c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, 0);
      c10::cuda::device_synchronize();
      {
        c10::cuda::CUDAStreamGuard on_side(side);
        for (int i = 0; i < kWarmupForwards; ++i) eager_->forward();
        c10::cuda::device_synchronize();
        graph_.capture_begin();
        try {
          eager_->forward();
        } catch (...) {
          try {
            graph_.capture_end();
          } catch (...) {
          }
          throw;
        }
        graph_.capture_end();
      }
      c10::cuda::device_synchronize();
    });
  }

  std::string name() const override { return eager_->name(); }
  std::string regionLabel() const override { return eager_->regionLabel(); }
  std::string describe() const override { return eager_->describe() + ", replayed as a CUDA graph"; }

  void forward() override {
    translateOutOfMemory("replaying the CUDA graph", [&] { graph_.replay(); });
  }
  void synchronize() override { c10::cuda::device_synchronize(); }

  double flopsPerForward() const override { return eager_->flopsPerForward(); }
  double weightBytes() const override { return eager_->weightBytes(); }

  // The graph writes into the tensors captured from the eager workload.
  at::Tensor input() const override { return torchPart().input(); }
  at::Tensor output() const override { return torchPart().output(); }
  std::vector<at::Tensor> weights() const override { return torchPart().weights(); }

 private:
  const TorchWorkload& torchPart() const {
    auto* t = dynamic_cast<const TorchWorkload*>(eager_.get());
    if (!t) throw WorkloadError(eager_->name() + " does not expose its tensors");
    return *t;
  }

  std::unique_ptr<Workload> eager_;
  at::cuda::CUDAGraph graph_;
};

}  // namespace

std::unique_ptr<Workload> makeCudaGraphWorkload(std::unique_ptr<Workload> eager, Device device) {
  if (device != Device::Cuda)
    throw WorkloadError("CUDA graph mode needs device cuda (" + eager->name() + " is on the CPU)");
  return std::make_unique<CudaGraphWorkload>(std::move(eager));
}

#else

std::unique_ptr<Workload> makeCudaGraphWorkload(std::unique_ptr<Workload> eager, Device) {
  throw WorkloadError("CUDA graph mode is not available: this fuselab build has no CUDA (" + eager->name() +
                      " can run eager)");
}

#endif

}  // namespace fuselab
