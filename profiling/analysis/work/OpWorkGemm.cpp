// Work models of matrix products: mm, addmm, bmm, baddbmm, matmul, linear,
// and fuselab's fused MLP kernels (which declare
// themselves as fuselab::* ops around their launches, kernels/FusedMlp.cpp).
// FLOPs = 2 x multiply-adds (+1 per output element for a bias); bytes = every
// input once + the output once.
#include <algorithm>
#include <array>

#include "profiling/analysis/work/OpWorkBuilder.h"

namespace fuselab {

namespace {

constexpr std::array<std::string_view, 7> kGemmOps = {
    "mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "fuselab::fused_mlp",
};

// a [.., M, K] x b [.., K, N] with broadcast batch dims (matmul's rules; a 1-D
// operand is a row or column vector).
bool matmulShape(WorkBuilder& b, size_t ia, size_t ib, double& batch, double& m, double& k, double& n) {
  if (std::max(ia, ib) >= b.in.inputs.size()) return b.fail("missing input " + std::to_string(std::max(ia, ib)));
  auto a = b.dims(ia), w = b.dims(ib);
  if (a.empty() || w.empty()) return b.fail("a 0-D operand");
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (w.size() == 1) w.push_back(1);
  m = double(a[a.size() - 2]);
  k = double(a.back());
  n = double(w.back());
  if (w[w.size() - 2] != a.back()) return b.fail("inner dims differ");
  const size_t batch_rank = std::max(a.size(), w.size()) - 2;
  batch = 1;
  for (size_t i = 0; i < batch_rank; ++i) {
    auto at = [&](const std::vector<int64_t>& d) -> int64_t {
      const size_t lead = d.size() - 2;
      return i + lead >= batch_rank ? d[i + lead - batch_rank] : 1;
    };
    batch *= double(std::max(at(a), at(w)));
  }
  return true;
}

OpWorkResult gemm(WorkBuilder& b, size_t ia, size_t ib, std::optional<size_t> bias) {
  double batch = 1, m = 0, k = 0, n = 0;
  if (!matmulShape(b, ia, ib, batch, m, k, n) || !b.read(ia) || !b.read(ib)) return b.result("");
  const bool has_bias = bias && *bias < b.in.inputs.size() && !b.dims(*bias).empty();
  if (has_bias && !b.read(*bias)) return b.result("");
  b.work.flops = 2 * batch * m * n * k + (has_bias ? batch * m * n : 0);
  b.write(ia, batch * m * n);
  return b.result(has_bias ? "2MNK + MN (bias)" : "2MNK");
}

// fuselab::fused_mlp (x [.., D], wgu [2H, D], down [D, H]): gate+up GEMM,
// GeGLU (two operations per hidden element) and the down GEMM.
OpWorkResult fusedMlp(WorkBuilder& b) {
  if (!b.rank(1, 2) || !b.rank(2, 2)) return b.result("");
  const auto& x = b.dims(0);
  if (x.empty()) return b.result("");
  const double d = double(x.back()), t = product(x, 0, x.size() - 1), h = double(b.dims(1)[0]) / 2;
  if (b.dims(1)[1] != x.back()) {
    b.fail("wgu is not [2H, D]");
    return b.result("");
  }
  for (size_t i = 0; i < 3; ++i)
    if (!b.read(i)) return b.result("");
  b.work.flops = 2 * t * d * 2 * h + 2 * t * h + 2 * t * h * d;
  b.write(0, t * d);
  OpWorkResult r = b.result("gate/up 4TDH + GeGLU 2TH + down 2TDH; x, weights, y once");
  if (r.work) {
    // Its large-token path: the GeGLU GEMM writes act [T, H], the down GEMM reads it.
    const double e = *elementBytes(b.in.inputs[0]);
    const Precision p = r.work->precision;
    r.parts.push_back({"gegluGemm", Work{2 * t * d * 2 * h + 2 * t * h, (t * d + 2 * h * d + t * h) * e, p}});
    r.parts.push_back({"", Work{2 * t * h * d, (t * h + d * h + t * d) * e, p}});
  }
  return r;
}

}  // namespace

bool isGemmModelName(std::string_view op_name) {
  const std::string_view s = shortOpName(op_name);
  return std::find(kGemmOps.begin(), kGemmOps.end(), s) != kGemmOps.end();
}

std::optional<OpWorkResult> gemmWork(std::string_view op_name, const OpInputs& in) {
  const std::string_view s = shortOpName(op_name);
  if (!isGemmModelName(op_name)) return std::nullopt;
  WorkBuilder b{in, op_name, {}, {}};
  b.precisionFromFirstTensor();
  if (s == "mm" || s == "bmm" || s == "matmul") return gemm(b, 0, 1, std::nullopt);
  if (s == "addmm" || s == "baddbmm") return gemm(b, 1, 2, 0);
  if (s == "linear") {
    // x [.., K] x weight [N, K]^T (+ bias [N])
    if (!b.rank(1, 2) || b.dims(0).empty()) return b.result("");
    const auto& x = b.dims(0);
    const double m = product(x, 0, x.size() - 1), k = double(x.back()), n = double(b.dims(1)[0]);
    if (b.dims(1)[1] != x.back()) {
      b.fail("weight is not [N, K]");
      return b.result("");
    }
    const bool has_bias = in.inputs.size() > 2 && !b.dims(2).empty();
    if (!b.read(0) || !b.read(1) || (has_bias && !b.read(2))) return b.result("");
    b.work.flops = 2 * m * n * k + (has_bias ? m * n : 0);
    b.write(0, m * n);
    return b.result(has_bias ? "2MNK + MN (bias)" : "2MNK");
  }
  if (s == "fuselab::fused_mlp") return fusedMlp(b);
  return std::nullopt;
}

}  // namespace fuselab
