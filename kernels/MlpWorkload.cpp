// mlp: the tutorial's stacked MLP on x [batch, seq, dim], three bias-free
// torch::nn::Linear layers.
//   geglu (default): down(gelu_tanh(gate(x)) * up(x))
//   stacked:         Linear(dim, hidden) -> GELU -> Linear(hidden, hidden) -> GELU -> Linear(hidden, dim)
#include <c10/core/InferenceMode.h>
#include <ATen/core/grad_mode.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/linear.h>
#include <torch/nn/modules/linear.h>

#include <cmath>
#include <sstream>

#include "kernels/TorchWorkload.h"
#include "kernels/WorkloadRegistry.h"

namespace fuselab {
namespace {

torch::nn::Linear seededLinear(int64_t in, int64_t out, uint64_t seed, const WorkloadParams& p) {
  torch::nn::Linear l(torch::nn::LinearOptions(in, out).bias(false));
  at::NoGradGuard no_grad;
  l->weight.copy_(seededRandn({out, in}, seed, 1.0 / std::sqrt(double(in)), DType::FP32, Device::Cpu));
  l->to(torchDevice(p.device), scalarType(p.dtype));
  return l;
}

at::Tensor runLinear(const torch::nn::Linear& l, const at::Tensor& x) { return at::linear(x, l->weight); }

class MlpWorkload final : public TorchWorkload {
 public:
  MlpWorkload(const WorkloadParams& p, bool stacked) : p_(p), stacked_(stacked) {
    translateOutOfMemory("creating the mlp weights", [&] {
      if (stacked_) {
        first_ = seededLinear(p.dim, p.hidden, p.seed + 1, p);
        second_ = seededLinear(p.hidden, p.hidden, p.seed + 2, p);
      } else {
        first_ = seededLinear(p.dim, p.hidden, p.seed + 1, p);   // gate
        second_ = seededLinear(p.dim, p.hidden, p.seed + 2, p);  // up
      }
      third_ = seededLinear(p.hidden, p.dim, p.seed + 3, p);  // down
      x_ = seededRandn({p.batch, p.seq, p.dim}, p.seed, 1.0, p.dtype, p.device);
    });
  }

  std::string name() const override { return "mlp"; }
  std::string regionLabel() const override { return "mlp_fwd"; }
  std::string describe() const override {
    std::ostringstream o;
    o << "mlp (" << (stacked_ ? "stacked" : "geglu") << "): x [" << p_.batch << ", " << p_.seq << ", " << p_.dim
      << "] " << dtypeName(p_.dtype) << " on " << deviceName(p_.device) << ", ";
    if (stacked_)
      o << "Linear(" << p_.dim << ", " << p_.hidden << ") -> GELU -> Linear(" << p_.hidden << ", " << p_.hidden
        << ") -> GELU -> Linear(" << p_.hidden << ", " << p_.dim << ")";
    else
      o << "down(gelu_tanh(gate(x)) * up(x)), gate/up [" << p_.hidden << ", " << p_.dim << "], down [" << p_.dim
        << ", " << p_.hidden << "]";
    o << ", no bias";
    return o.str();
  }

  void forward() override {
    translateOutOfMemory("running mlp", [&] {
      c10::InferenceMode guard;
      // at::linear, as Python's nn.Linear calls it: the C++ module's own
      // forward() skips aten::linear and calls matmul directly.
      if (stacked_) {
        at::Tensor h = at::gelu(runLinear(first_, x_));
        h = at::gelu(runLinear(second_, h));
        out_ = runLinear(third_, h);
      } else {
        // Separate statements fix the order (gate before up, as Python
        // evaluates the expression) and free the gate output after GELU.
        at::Tensor g = at::gelu(runLinear(first_, x_), "tanh");
        at::Tensor u = runLinear(second_, x_);
        out_ = runLinear(third_, at::mul(g, u));
      }
    });
  }
  void synchronize() override { synchronizeDevice(p_.device); }

  double flopsPerForward() const override {
    double t = double(p_.batch) * double(p_.seq), d = double(p_.dim), h = double(p_.hidden);
    // GEMMs, plus one operation per element of each pointwise op.
    if (stacked_) return 2.0 * t * (d * h + h * h + h * d) + 2.0 * t * h;
    return 2.0 * t * 3.0 * d * h + 2.0 * t * h;
  }
  double weightBytes() const override {
    double d = double(p_.dim), h = double(p_.hidden);
    return (stacked_ ? d * h + h * h + h * d : 3.0 * d * h) * elementBytes(p_.dtype);
  }

  at::Tensor input() const override { return x_; }
  at::Tensor output() const override { return out_; }
  std::vector<at::Tensor> weights() const override { return {first_->weight, second_->weight, third_->weight}; }

 private:
  WorkloadParams p_;
  bool stacked_;
  torch::nn::Linear first_{nullptr}, second_{nullptr}, third_{nullptr};
  at::Tensor x_, out_;
};

double estimateBytes(const WorkloadParams& p) {
  double t = double(p.batch) * double(p.seq), d = double(p.dim), h = double(p.hidden);
  bool stacked = p.variant == "stacked";
  double weights = stacked ? d * h + h * h + h * d : 3.0 * d * h;
  // Peak live [tokens, hidden] tensors: geglu holds gelu(gate), up and their
  // product; stacked holds one layer's input and output. Plus x, the output
  // and the previous forward's output.
  double activations = (stacked ? 2.0 : 3.0) * t * h + 3.0 * t * d;
  return (weights + activations) * double(elementBytes(p.dtype));
}

std::unique_ptr<Workload> make(const WorkloadParams& p) {
  return std::make_unique<MlpWorkload>(p, p.variant == "stacked");
}

}  // namespace

WorkloadEntry mlpEntry() { return {catalogWorkload("mlp"), estimateBytes, make}; }

}  // namespace fuselab
