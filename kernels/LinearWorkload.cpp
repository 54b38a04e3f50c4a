// linear: torch::nn::Linear with bias (Part 2 of the tutorial). The bias is
// added in the GEMM epilogue (aten::addmm), so one kernel per forward.
#include <c10/core/InferenceMode.h>
#include <ATen/ops/linear.h>
#include <torch/nn/modules/linear.h>

#include <cmath>
#include <sstream>

#include "kernels/TorchWorkload.h"
#include "kernels/WorkloadRegistry.h"

namespace fuselab {
namespace {

class LinearWorkload final : public TorchWorkload {
 public:
  explicit LinearWorkload(const WorkloadParams& p) : p_(p), linear_(torch::nn::LinearOptions(p.dim, p.out).bias(true)) {
    translateOutOfMemory("creating the linear weights", [&] {
      at::NoGradGuard no_grad;
      linear_->weight.copy_(seededRandn({p.out, p.dim}, p.seed + 1, 1.0 / std::sqrt(double(p.dim)), DType::FP32, Device::Cpu));
      linear_->bias.copy_(seededRandn({p.out}, p.seed + 2, 0.1, DType::FP32, Device::Cpu));
      linear_->to(torchDevice(p.device), scalarType(p.dtype));
      x_ = seededRandn({p.batch, p.dim}, p.seed, 1.0, p.dtype, p.device);
    });
  }

  std::string name() const override { return "linear"; }
  std::string regionLabel() const override { return "linear_fwd"; }
  std::string describe() const override {
    std::ostringstream o;
    o << "linear: nn.Linear(" << p_.dim << ", " << p_.out << ", bias=True), x [" << p_.batch << ", " << p_.dim
      << "] " << dtypeName(p_.dtype) << " on " << deviceName(p_.device);
    return o.str();
  }

  void forward() override {
    translateOutOfMemory("running linear", [&] {
      c10::InferenceMode guard;
      // at::linear, as Python's nn.Linear calls it: the C++ module's own
      // forward() skips aten::linear and calls addmm/matmul directly.
      out_ = at::linear(x_, linear_->weight, linear_->bias);
    });
  }
  void synchronize() override { synchronizeDevice(p_.device); }

  double flopsPerForward() const override {
    return 2.0 * double(p_.batch) * double(p_.dim) * double(p_.out) + double(p_.batch) * double(p_.out);
  }
  double weightBytes() const override { return (double(p_.out) * double(p_.dim) + double(p_.out)) * elementBytes(p_.dtype); }

  at::Tensor input() const override { return x_; }
  at::Tensor output() const override { return out_; }
  std::vector<at::Tensor> weights() const override { return {linear_->weight, linear_->bias}; }

 private:
  WorkloadParams p_;
  torch::nn::Linear linear_;
  at::Tensor x_, out_;
};

double estimateBytes(const WorkloadParams& p) {
  double b = double(p.batch), in = double(p.dim), out = double(p.out);
  return (out * in + out + b * in + 2.0 * b * out) * double(elementBytes(p.dtype));
}

std::unique_ptr<Workload> make(const WorkloadParams& p) { return std::make_unique<LinearWorkload>(p); }

}  // namespace

WorkloadEntry linearEntry() { return {catalogWorkload("linear"), estimateBytes, make}; }

}  // namespace fuselab
