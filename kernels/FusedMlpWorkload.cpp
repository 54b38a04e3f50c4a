#include "kernels/FusedMlpWorkload.h"

#include <ATen/Context.h>
#include <ATen/ops/empty_like.h>

#include <cmath>
#include <sstream>

#include "kernels/FusedMlp.h"
#include "kernels/TorchWorkload.h"

namespace fuselab {
namespace {

class FusedMlpWorkload final : public TorchWorkload {
 public:
  explicit FusedMlpWorkload(const WorkloadParams& p) : p_(p), path_(parseFusedMlpPath(p.variant)) {
    translateOutOfMemory("creating the fused_mlp weights", [&] {
      // The seeds and scales of the eager `mlp` workload (MlpWorkload.cpp): gate
      // seed+1, up seed+2, down seed+3, each N(0, 1/in_features), x seed.
      gate_ = seededRandn({p.hidden, p.dim}, p.seed + 1, 1.0 / std::sqrt(double(p.dim)), p.dtype, p.device);
      up_ = seededRandn({p.hidden, p.dim}, p.seed + 2, 1.0 / std::sqrt(double(p.dim)), p.dtype, p.device);
      down_ = seededRandn({p.dim, p.hidden}, p.seed + 3, 1.0 / std::sqrt(double(p.hidden)), p.dtype, p.device);
      x_ = seededRandn({p.batch, p.seq, p.dim}, p.seed, 1.0, p.dtype, p.device);
      y_ = at::empty_like(x_);
      mlp_ = std::make_unique<FusedMlp>(gate_, up_, down_);
    });
  }

  std::string name() const override { return "fused_mlp"; }
  std::string regionLabel() const override { return "mlp_fwd"; }
  std::string describe() const override {
    const int64_t tokens = p_.batch * p_.seq;
    std::ostringstream o;
    o << "fused_mlp (" << fusedMlpPathName(path_);
    if (path_ == FusedMlpPath::Auto || mlp_->resolve(tokens, path_) != path_) {
      o << " -> " << fusedMlpPathName(mlp_->resolve(tokens, path_));
    }
    o << "): x [" << p_.batch << ", " << p_.seq << ", " << p_.dim << "] " << dtypeName(p_.dtype)
      << " on cuda, down(gelu_tanh(gate(x)) * up(x)), gate/up [" << p_.hidden << ", " << p_.dim << "], down ["
      << p_.dim << ", " << p_.hidden << "], no bias; " << mlp_->explain(tokens, path_);
    return o.str();
  }

  void forward() override {
    translateOutOfMemory("running fused_mlp", [&] { mlp_->forward(x_, y_, path_); });
  }
  void synchronize() override { synchronizeDevice(p_.device); }

  // Counted like the eager mlp (GEMMs plus one operation per GeGLU element) so
  // TFLOP/s figures of the two compare directly.
  double flopsPerForward() const override {
    const double t = double(p_.batch) * double(p_.seq), d = double(p_.dim), h = double(p_.hidden);
    return 2.0 * t * 3.0 * d * h + 2.0 * t * h;
  }
  double weightBytes() const override { return 3.0 * double(p_.dim) * double(p_.hidden) * elementBytes(p_.dtype); }

  at::Tensor input() const override { return x_; }
  at::Tensor output() const override { return y_; }
  std::vector<at::Tensor> weights() const override { return {gate_, up_, down_}; }

 private:
  WorkloadParams p_;
  FusedMlpPath path_;
  at::Tensor gate_, up_, down_, x_, y_;
  std::unique_ptr<FusedMlp> mlp_;
};

double estimateBytes(const WorkloadParams& p) {
  const double t = double(p.batch) * double(p.seq), d = double(p.dim), h = double(p.hidden);
  // Weights plus the interleaved gate/up copy, x and y, and the [tokens, hidden]
  // buffers of the path: act (large), gate, up and act (liger).
  double elements = 5.0 * d * h + 2.0 * t * d;
  if (p.variant == "liger") {
    elements += 3.0 * t * h;
  } else if (p.variant != "small" && p.variant != "small_deterministic") {
    elements += t * h;
  }
  // The one launch's fp32 partial sums (up to 128 tokens on Hopper).
  const double small_partials = t <= double(kFusedMlpSmallMaxTokensHopper) ? 256.0 * t * d * 4.0 : 0.0;
  return elements * double(elementBytes(p.dtype)) + small_partials;
}

std::unique_ptr<Workload> make(const WorkloadParams& p) { return makeFusedMlpWorkload(p); }

}  // namespace

void validateFusedMlpParams(const WorkloadParams& p) {
  if (p.dtype == DType::FP32) {
    throw WorkloadError("fused_mlp runs in bf16 or fp16 (fp32 given): its kernels use bf16/fp16 tensor cores");
  }
  const FusedMlpPath path = parseFusedMlpPath(p.variant);
  if (p.batch < 1 || p.seq < 1) {
    throw WorkloadError("fused_mlp needs batch >= 1 and seq >= 1 (batch = " + std::to_string(p.batch) +
                        ", seq = " + std::to_string(p.seq) + ")");
  }
  checkFusedMlpShape(p.batch * p.seq, p.dim, p.hidden, path);
  if (p.device != Device::Cuda) {
    throw WorkloadError("fused_mlp runs only on a CUDA GPU (device " + deviceName(p.device) +
                        " given): use the mlp workload on the CPU");
  }
}

std::unique_ptr<Workload> makeFusedMlpWorkload(const WorkloadParams& params) {
  validateFusedMlpParams(params);
#ifndef FUSELAB_HAVE_CUDA
  throw WorkloadError("fused_mlp needs CUDA, and this fuselab build has none");
#else
  if (!at::hasCUDA()) throw WorkloadError("fused_mlp needs a CUDA GPU, and none is available");
  return std::make_unique<FusedMlpWorkload>(params);
#endif
}

WorkloadEntry fusedMlpEntry() { return {catalogWorkload("fused_mlp"), estimateBytes, make}; }

}  // namespace fuselab
