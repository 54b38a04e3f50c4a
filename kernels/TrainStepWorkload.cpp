// train_step: one training step of a one-block transformer language model,
// the shape of the steps people profile: embedding, layer norm, causal
// scaled-dot-product attention, GELU MLP, dropout, cross-entropy under
// autocast (bf16/fp16; none for fp32), backward, and a fused AdamW update
// (aten::_fused_adamw_) of fp32 parameters. dim = model width (heads of 64),
// hidden = the MLP's width, out = the vocabulary, batch x seq tokens.
#include <ATen/autocast_mode.h>
#include <ATen/core/grad_mode.h>
#include <ATen/ops/_fused_adamw.h>
#include <ATen/ops/cross_entropy_loss.h>
#include <ATen/ops/dropout.h>
#include <ATen/ops/embedding.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/layer_norm.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/autograd/autograd.h>

#include <cmath>
#include <sstream>

#include "kernels/TorchWorkload.h"
#include "kernels/WorkloadRegistry.h"

namespace fuselab {
namespace {

constexpr int64_t kHeadDim = 64;
constexpr double kDropout = 0.1;

// Autocast to the workload's dtype for one forward (Python's torch.autocast).
class AutocastScope {
 public:
  AutocastScope(const WorkloadParams& p) : type_(torchDevice(p.device).type()), on_(p.dtype != DType::FP32) {
    if (!on_) return;
    was_enabled_ = at::autocast::is_autocast_enabled(type_);
    was_dtype_ = at::autocast::get_autocast_dtype(type_);
    at::autocast::set_autocast_enabled(type_, true);
    at::autocast::set_autocast_dtype(type_, scalarType(p.dtype));
  }
  ~AutocastScope() {
    if (!on_) return;
    at::autocast::set_autocast_enabled(type_, was_enabled_);
    at::autocast::set_autocast_dtype(type_, was_dtype_);
    at::autocast::clear_cache();
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  at::DeviceType type_;
  bool on_;
  bool was_enabled_ = false;
  at::ScalarType was_dtype_ = at::kFloat;
};

class TrainStepWorkload final : public TorchWorkload {
 public:
  explicit TrainStepWorkload(const WorkloadParams& p) : p_(p), heads_(p.dim / kHeadDim) {
    translateOutOfMemory("creating the train_step parameters", [&] {
      const int64_t d = p.dim, h = p.hidden, v = p.out;
      uint64_t seed = p.seed;
      auto weight = [&](at::IntArrayRef sizes, double scale) {
        return seededRandn(sizes, ++seed, scale, DType::FP32, p.device).requires_grad_(true);
      };
      auto constant = [&](int64_t n, double value) {
        return at::ones({n}, at::TensorOptions().device(torchDevice(p.device))).mul_(value).requires_grad_(true);
      };
      embed_ = weight({v, d}, 0.02);
      params_ = {embed_,           constant(d, 1),   constant(d, 0),  weight({3 * d, d}, 1 / std::sqrt(double(d))),
                 constant(3 * d, 0), weight({d, d}, 1 / std::sqrt(double(d))), constant(d, 0), constant(d, 1),
                 constant(d, 0),   weight({h, d}, 1 / std::sqrt(double(d))),   constant(h, 0),
                 weight({d, h}, 1 / std::sqrt(double(h))), constant(d, 0), constant(d, 1), constant(d, 0),
                 weight({v, d}, 1 / std::sqrt(double(d)))};
      for (const at::Tensor& w : params_) {
        exp_avgs_.push_back(at::zeros_like(w));
        exp_avg_sqs_.push_back(at::zeros_like(w));
        steps_.push_back(at::zeros({}, w.options().requires_grad(false)));
      }
      at::Generator gen = at::detail::createCPUGenerator(p.seed);
      tokens_ = at::randint(v, {p.batch, p.seq}, gen, at::TensorOptions().dtype(at::kLong)).to(torchDevice(p.device));
      targets_ = at::randint(v, {p.batch, p.seq}, gen, at::TensorOptions().dtype(at::kLong)).to(torchDevice(p.device));
    });
  }

  std::string name() const override { return "train_step"; }
  std::string regionLabel() const override { return "train_step"; }
  std::string describe() const override {
    std::ostringstream o;
    o << "train_step: tokens [" << p_.batch << ", " << p_.seq << "], vocab " << p_.out << ", one block of width "
      << p_.dim << " (" << heads_ << " heads of " << kHeadDim << ", causal attention), MLP " << p_.hidden
      << ", dropout " << kDropout << ", cross-entropy under " << (p_.dtype == DType::FP32 ? "fp32" : "autocast ")
      << (p_.dtype == DType::FP32 ? "" : dtypeName(p_.dtype)) << " on " << deviceName(p_.device)
      << "; backward; fused AdamW of fp32 parameters";
    return o.str();
  }

  void forward() override {
    translateOutOfMemory("running train_step", [&] {
      at::AutoGradMode grad(true);
      at::Tensor loss;
      {
        AutocastScope autocast(p_);
        loss = at::cross_entropy_loss(logits().view({-1, p_.out}), targets_.view({-1}));
      }
      torch::autograd::backward({loss});
      std::vector<at::Tensor> grads;
      for (at::Tensor& w : params_) grads.push_back(w.grad());
      at::NoGradGuard no_grad;
      at::_fused_adamw_(params_, grads, exp_avgs_, exp_avg_sqs_, {}, steps_, 1e-4, 0.9, 0.999, 0.01, 1e-8,
                        /*amsgrad=*/false, /*maximize=*/false);
      for (at::Tensor& w : params_) w.mutable_grad() = at::Tensor();  // zero_grad(set_to_none=True)
      loss_ = loss.detach();
    });
  }
  void synchronize() override { synchronizeDevice(p_.device); }

  double flopsPerForward() const override {
    // GEMMs forward (2 per multiply-add) and backward (twice the forward):
    // qkv, proj, up, down, head, and attention's two products (causal: half).
    const double t = double(p_.batch) * double(p_.seq), d = double(p_.dim), h = double(p_.hidden);
    const double gemm = 2 * t * (3 * d * d + d * d + 2 * d * h + d * double(p_.out));
    const double attention = 2 * double(p_.batch) * double(p_.seq) * double(p_.seq) / 2 * 2 * d;
    return 3 * gemm + 3.5 * attention;
  }
  double weightBytes() const override {
    double n = 0;
    for (const at::Tensor& w : params_) n += double(w.numel());
    return n * 4;
  }

  at::Tensor input() const override { return tokens_; }
  at::Tensor output() const override { return loss_; }
  std::vector<at::Tensor> weights() const override { return params_; }

 private:
  at::Tensor logits() {
    const int64_t b = p_.batch, t = p_.seq, d = p_.dim;
    const auto& w = params_;
    at::Tensor x = at::embedding(w[0], tokens_);
    at::Tensor qkv = at::linear(at::layer_norm(x, {d}, w[1], w[2]), w[3], w[4]);
    qkv = qkv.view({b, t, 3, heads_, kHeadDim}).permute({2, 0, 3, 1, 4});
    at::Tensor a = at::scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], {}, 0.0, /*is_causal=*/true);
    a = a.transpose(1, 2).reshape({b, t, d});
    x = x + at::dropout(at::linear(a, w[5], w[6]), kDropout, true);
    at::Tensor m = at::gelu(at::linear(at::layer_norm(x, {d}, w[7], w[8]), w[9], w[10]));
    x = x + at::dropout(at::linear(m, w[11], w[12]), kDropout, true);
    return at::linear(at::layer_norm(x, {d}, w[13], w[14]), w[15]);
  }

  WorkloadParams p_;
  int64_t heads_;
  at::Tensor embed_, tokens_, targets_, loss_;
  std::vector<at::Tensor> params_, exp_avgs_, exp_avg_sqs_, steps_;
};

double estimateBytes(const WorkloadParams& p) {
  const double t = double(p.batch) * double(p.seq), d = double(p.dim), h = double(p.hidden), v = double(p.out);
  const double params = 2 * v * d + 4 * d * d + 2 * d * h;
  // fp32 parameters, gradients and two moments; activations kept for the
  // backward (a dozen [tokens, dim] tensors, the MLP's and the logits').
  return params * 4 * 4 + t * (12 * d + 3 * h + 3 * v) * 4;
}

std::unique_ptr<Workload> make(const WorkloadParams& p) {
  if (p.dim % kHeadDim != 0)
    throw WorkloadError("train_step needs dim to be a multiple of " + std::to_string(kHeadDim) + " (heads of " +
                        std::to_string(kHeadDim) + "), got " + std::to_string(p.dim));
  if (p.graph)
    throw WorkloadError("train_step has no CUDA graph mode (its backward and optimizer step run eagerly): drop --graph");
  return std::make_unique<TrainStepWorkload>(p);
}

}  // namespace

WorkloadEntry trainStepEntry() { return {catalogWorkload("train_step"), estimateBytes, make}; }

}  // namespace fuselab
