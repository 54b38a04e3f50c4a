#include "kernels/CudaGraphWorkload.h"

#ifdef FUSELAB_HAVE_CUDA
#include <c10/cuda/CUDAFunctions.h>

#include "kernels/ForwardGraph.h"
#endif

#include "kernels/TorchWorkload.h"

namespace fuselab {

#ifdef FUSELAB_HAVE_CUDA
namespace {

constexpr int kWarmupForwards = 3;

class CudaGraphWorkload final : public TorchWorkload {
 public:
  explicit CudaGraphWorkload(std::unique_ptr<Workload> eager) : eager_(std::move(eager)) {
    translateOutOfMemory("capturing the CUDA graph",
                         [&] { graph_ = captureForwardGraph([&] { eager_->forward(); }, kWarmupForwards); });
  }

  std::string name() const override { return eager_->name(); }
  std::string regionLabel() const override { return eager_->regionLabel(); }
  std::string describe() const override { return eager_->describe() + ", replayed as a CUDA graph"; }

  void forward() override {
    translateOutOfMemory("replaying the CUDA graph", [&] { graph_->replay(); });
  }
  void synchronize() override { c10::cuda::device_synchronize(); }

  double flopsPerForward() const override { return eager_->flopsPerForward(); }
  double weightBytes() const override { return eager_->weightBytes(); }
  std::string distributedInfoJson() const override { return eager_->distributedInfoJson(); }

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
  std::unique_ptr<at::cuda::CUDAGraph> graph_;
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
