// Work models of Inductor's generated Triton kernels, from the CPU op
// Inductor records around each launch: named after the kernel, with every
// argument's dims and dtype (tensors) or value (sizes) when shapes are on.
// - Pointwise and reduction kernels (triton_poi_, triton_red_, triton_per_):
//   bytes = every tensor argument once, whole (Inductor passes the buffers a
//   kernel reads and writes; a buffer updated in place counts once). FLOPs =
//   the elements it iterates (its trailing size arguments: xnumel, times
//   r0_numel for a reduction) times the FLOPs per element of the fused ops
//   its name lists, as the eager models count them (add 1, gelu_backward 2,
//   native_layer_norm 8, ...); views, copies and ops not listed count none.
// - Template GEMMs (triton_tem_ with mm in their name): the output is the
//   last tensor argument [.., M, N]; A and B are the first two earlier
//   tensors whose sizes fit [.., M, K] and [.., K, N] (whatever their views).
//   FLOPs 2MNK (+MN with addmm's bias); bytes every tensor argument once.
//   When no pair fits, the work is unknown.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <utility>

#include "profiling/analysis/work/OpWorkBuilder.h"

namespace fuselab {

namespace {

// FLOPs per element of the ops Inductor names its kernels after.
constexpr std::array<std::pair<std::string_view, double>, 34> kFusedOps = {{
    {"add", 1}, {"sub", 1}, {"mul", 1}, {"div", 1}, {"neg", 1}, {"abs", 1}, {"exp", 1}, {"log", 1},
    {"sqrt", 1}, {"rsqrt", 1}, {"reciprocal", 1}, {"pow", 1}, {"where", 1}, {"maximum", 1}, {"minimum", 1},
    {"relu", 1}, {"gelu", 1}, {"silu", 1}, {"sigmoid", 1}, {"tanh", 1}, {"sum", 1}, {"mean", 1}, {"amax", 1},
    {"gelu_backward", 2}, {"silu_backward", 2}, {"threshold_backward", 2}, {"sigmoid_backward", 2},
    {"native_dropout", 2}, {"native_dropout_backward", 2}, {"native_layer_norm", 8},
    {"native_layer_norm_backward", 12}, {"_softmax", 5}, {"_log_softmax", 5}, {"_softmax_backward_data", 4},
}};

bool isTritonName(std::string_view s) {
  return s.starts_with("triton_poi_") || s.starts_with("triton_red_") || s.starts_with("triton_per_") ||
         s.starts_with("triton_tem_");
}

// "triton_poi_fused_add_native_dropout_view_11" -> FLOPs per element of add + native_dropout.
double flopsPerElement(std::string_view name) {
  const size_t fused = name.find("fused_");
  if (fused == std::string_view::npos) return 0;
  std::string_view rest = name.substr(fused + 6);
  while (!rest.empty() && std::isdigit(static_cast<unsigned char>(rest.back()))) rest.remove_suffix(1);
  double flops = 0;
  while (!rest.empty()) {
    // The longest listed op at this position that ends at an underscore or the end.
    size_t best = 0;
    double best_flops = 0;
    for (const auto& [op, f] : kFusedOps)
      if (op.size() > best && rest.starts_with(op) && (rest.size() == op.size() || rest[op.size()] == '_'))
        best = op.size(), best_flops = f;
    if (best == 0) best = std::min(rest.find('_', 1), rest.size());  // skip one word
    else flops += best_flops;
    rest.remove_prefix(best);
    if (!rest.empty() && rest.front() == '_') rest.remove_prefix(1);
  }
  return flops;
}

double numel(const std::vector<int64_t>& d) { return product(d, 0, d.size()); }

OpWorkResult templateGemm(WorkBuilder& b, const std::vector<size_t>& tensors) {
  const size_t out_at = tensors.back();
  const auto& out = b.dims(out_at);
  if (out.size() < 2) {
    b.fail("its last tensor argument is not a matrix");
    return b.result("");
  }
  const double batch = product(out, 0, out.size() - 2), m = double(out[out.size() - 2]), n = double(out.back());
  for (size_t a = 0; a + 1 < tensors.size(); ++a)
    for (size_t c = a + 1; c + 1 < tensors.size(); ++c) {
      const double na = numel(b.dims(tensors[a])), nb = numel(b.dims(tensors[c]));
      if (batch * m <= 0 || na <= 0) continue;
      const double k = na / (batch * m);
      if (k < 1 || std::floor(k) != k || (nb != k * n && nb != batch * k * n)) continue;
      b.work.precision = precisionOfType(b.in.inputs[tensors[a]].type);
      for (size_t t : tensors) b.read(t);
      b.work.flops = 2 * batch * m * n * k;
      bool bias = false;
      if (b.name.find("addmm") != std::string_view::npos)
        for (size_t t : tensors)
          if (b.dims(t).size() == 1 && double(b.dims(t)[0]) == n) bias = true;
      if (bias) b.work.flops += batch * m * n;
      return b.result(std::string("a template GEMM, 2MNK") + (bias ? " + MN (bias)" : "") +
                      "; every tensor argument once");
    }
  b.fail("no two tensor arguments fit [M, K] x [K, N] for its output");
  return b.result("");
}

}  // namespace

bool isTritonModelName(std::string_view op_name) { return isTritonName(op_name); }

std::optional<OpWorkResult> tritonWork(std::string_view op_name, const OpInputs& in) {
  if (!isTritonName(op_name)) return std::nullopt;
  WorkBuilder b{in, op_name, {}, {}};
  std::vector<size_t> tensors;
  std::vector<int64_t> sizes;  // the integer arguments, in order
  for (size_t i = 0; i < in.inputs.size(); ++i) {
    if (!in.inputs[i].dims.empty()) tensors.push_back(i);
    else if (auto v = in.concreteInt(i)) sizes.push_back(*v);
  }
  if (tensors.empty()) {
    b.fail("no tensor argument recorded");
    return b.result("");
  }
  if (op_name.starts_with("triton_tem_")) {
    if (op_name.find("mm") == std::string_view::npos) {
      b.fail("a template kernel that is not a matrix product");
      return b.result("");
    }
    return templateGemm(b, tensors);
  }
  for (size_t t : tensors) b.read(t);
  if (const OpInput* widest = widestFloatInput(in)) b.work.precision = precisionOfType(widest->type);
  const bool reduction = !op_name.starts_with("triton_poi_");
  double elements = 0;
  if (!reduction && !sizes.empty()) elements = double(sizes.back());
  else if (reduction && sizes.size() >= 2) elements = double(sizes[sizes.size() - 2]) * double(sizes.back());
  else
    for (size_t t : tensors) elements = std::max(elements, numel(b.dims(t)));
  b.work.flops = elements * flopsPerElement(op_name);
  return b.result("every tensor argument once; FLOPs per element from the fused ops its name lists");
}

}  // namespace fuselab
