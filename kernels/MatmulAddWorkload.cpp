// matmul_add: add(matmul(x, w), b) with x, w, b all [dim, dim] (Part 1 of the
// tutorial): a GEMM and a separate elementwise add.
// Variant addmm: the same sum as one aten::addmm(b, x, w), the call
// torch.compile rewrites matmul + add into (tutorial step 7).
#include <c10/core/InferenceMode.h>
#include <ATen/ops/add.h>
#include <ATen/ops/addmm.h>
#include <ATen/ops/matmul.h>

#include <cmath>
#include <sstream>

#include "kernels/TorchWorkload.h"
#include "kernels/WorkloadRegistry.h"

namespace fuselab {
namespace {

class MatmulAddWorkload final : public TorchWorkload {
 public:
  explicit MatmulAddWorkload(const WorkloadParams& p) : p_(p), addmm_(p.variant == "addmm") {
    const int64_t d = p.dim;
    translateOutOfMemory("creating the matmul_add tensors", [&] {
      x_ = seededRandn({d, d}, p.seed, 1.0, p.dtype, p.device);
      w_ = seededRandn({d, d}, p.seed + 1, 1.0 / std::sqrt(double(d)), p.dtype, p.device);
      b_ = seededRandn({d, d}, p.seed + 2, 1.0, p.dtype, p.device);
    });
  }

  std::string name() const override { return "matmul_add"; }
  std::string regionLabel() const override { return "matmul_add"; }
  std::string describe() const override {
    std::ostringstream o;
    o << "matmul_add: " << (addmm_ ? "addmm(b, x, w)" : "add(matmul(x, w), b)") << ", x, w, b [" << p_.dim << ", "
      << p_.dim << "] "
      << dtypeName(p_.dtype) << " on " << deviceName(p_.device);
    return o.str();
  }

  void forward() override {
    translateOutOfMemory("running matmul_add", [&] {
      c10::InferenceMode guard;
      out_ = addmm_ ? at::addmm(b_, x_, w_) : at::add(at::matmul(x_, w_), b_);
    });
  }
  void synchronize() override { synchronizeDevice(p_.device); }

  double flopsPerForward() const override {
    double d = double(p_.dim);
    return 2.0 * d * d * d + d * d;
  }
  double weightBytes() const override { return 2.0 * double(p_.dim) * double(p_.dim) * elementBytes(p_.dtype); }

  at::Tensor input() const override { return x_; }
  at::Tensor output() const override { return out_; }
  std::vector<at::Tensor> weights() const override { return {w_, b_}; }

 private:
  WorkloadParams p_;
  bool addmm_;
  at::Tensor x_, w_, b_, out_;
};

double estimateBytes(const WorkloadParams& p) {
  // x, w, b, the matmul result, the sum, and the previous forward's sum.
  double d = double(p.dim);
  return 6.0 * d * d * double(elementBytes(p.dtype));
}

std::unique_ptr<Workload> make(const WorkloadParams& p) { return std::make_unique<MatmulAddWorkload>(p); }

}  // namespace

WorkloadEntry matmulAddEntry() { return {catalogWorkload("matmul_add"), estimateBytes, make}; }

}  // namespace fuselab
