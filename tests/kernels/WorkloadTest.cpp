// Workloads on the CPU: parameter checks (messages name the value and the
// allowed range), output shapes, and results against references composed
// here from plain ATen ops on the workloads' own tensors.
#include <gtest/gtest.h>

#include <ATen/Context.h>
#include <ATen/ops/add.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/mul.h>

#include <algorithm>

#include "kernels/TorchWorkload.h"
#include "kernels/WorkloadRegistry.h"
#include "tests/support/WorkloadErrorOf.h"

namespace fuselab {
namespace {

WorkloadParams cpuParams(const std::string& workload) {
  WorkloadParams p;
  p.workload = workload;
  p.device = Device::Cpu;
  p.dtype = DType::FP32;
  return p;
}

TorchWorkload& torchOf(const std::unique_ptr<Workload>& w) {
  auto* t = dynamic_cast<TorchWorkload*>(w.get());
  if (!t) throw std::runtime_error("workload does not expose tensors");
  return *t;
}

const WorkloadInfo* infoOf(const std::string& name) {
  static const auto all = listWorkloads();
  for (const auto& i : all)
    if (i.name == name) return &i;
  return nullptr;
}

TEST(WorkloadList, HasTheTutorialWorkloadsWithTheirDefaults) {
  const WorkloadInfo* linear = infoOf("linear");
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->defaults.batch, 1024);
  EXPECT_EQ(linear->defaults.dim, 32);
  EXPECT_EQ(linear->defaults.out, 64);
  const WorkloadInfo* mlp = infoOf("mlp");
  ASSERT_NE(mlp, nullptr);
  EXPECT_EQ(mlp->defaults.batch, 64);
  EXPECT_EQ(mlp->defaults.seq, 128);
  EXPECT_EQ(mlp->defaults.dim, 768);
  EXPECT_EQ(mlp->defaults.hidden, 3072);
  ASSERT_GE(mlp->variants.size(), 2u);
  EXPECT_EQ(mlp->variants[0], "geglu");
  EXPECT_NE(std::find(mlp->variants.begin(), mlp->variants.end(), "stacked"), mlp->variants.end());
  EXPECT_NE(infoOf("matmul_add"), nullptr);
  for (const auto& info : listWorkloads()) EXPECT_EQ(info.defaults.workload, info.name);
}

TEST(WorkloadValidation, ZeroAndNegativeSizesNameTheRange) {
  WorkloadParams p = cpuParams("mlp");
  p.batch = 0;
  std::string msg = test::workloadErrorOf(p);
  EXPECT_NE(msg.find("batch = 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1 to " + std::to_string(SizeLimits::kMaxBatch)), std::string::npos) << msg;

  p = cpuParams("matmul_add");
  p.dim = -5;
  msg = test::workloadErrorOf(p);
  EXPECT_NE(msg.find("dim = -5"), std::string::npos) << msg;

  p = cpuParams("mlp");
  p.hidden = SizeLimits::kMaxHidden + 1;
  msg = test::workloadErrorOf(p);
  EXPECT_NE(msg.find("hidden = " + std::to_string(SizeLimits::kMaxHidden + 1)), std::string::npos) << msg;
}

TEST(WorkloadValidation, UnknownNamesListTheChoices) {
  WorkloadParams p = cpuParams("conv");
  std::string msg = test::workloadErrorOf(p);
  EXPECT_NE(msg.find("unknown workload 'conv'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("mlp"), std::string::npos) << msg;

  p = cpuParams("mlp");
  p.variant = "wide";
  msg = test::workloadErrorOf(p);
  EXPECT_NE(msg.find("unknown variant 'wide'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("stacked"), std::string::npos) << msg;

  try {
    parseDType("int8");
    ADD_FAILURE() << "int8 accepted";
  } catch (const WorkloadError& e) {
    EXPECT_NE(std::string(e.what()).find("bf16, fp16 or fp32"), std::string::npos) << e.what();
  }
}

TEST(WorkloadValidation, SizesThatDoNotFitInMemoryAreRejected) {
  WorkloadParams p = cpuParams("mlp");
  p.batch = SizeLimits::kMaxBatch;
  p.seq = 4096;
  p.hidden = 65536;
  std::string msg = test::workloadErrorOf(p);
  EXPECT_NE(msg.find("needs about"), std::string::npos) << msg;
  EXPECT_NE(msg.find("host memory"), std::string::npos) << msg;
}

TEST(WorkloadValidation, CudaWithoutGpuIsANoGpuError) {
  if (at::hasCUDA()) GTEST_SKIP() << "a CUDA GPU is present: the no-GPU message cannot be checked here";
  WorkloadParams p = cpuParams("linear");
  p.device = Device::Cuda;
  EXPECT_THROW(makeWorkload(p), NoGpuError);
  // No command-line flag in it: the window shows it too.
  EXPECT_EQ(test::workloadErrorOf(p), "no CUDA GPU available on this machine");
}

TEST(WorkloadValidation, GraphModeNeedsCuda) {
  WorkloadParams p = cpuParams("linear");
  p.graph = true;
  std::string msg = test::workloadErrorOf(p);
  EXPECT_NE(msg.find("CUDA graph"), std::string::npos) << msg;
}

TEST(Workloads, MatmulAddMatchesAddOfMatmul) {
  WorkloadParams p = cpuParams("matmul_add");
  p.dim = 24;
  auto w = makeWorkload(p);
  EXPECT_EQ(w->regionLabel(), "matmul_add");
  w->forward();
  w->synchronize();
  TorchWorkload& t = torchOf(w);
  at::Tensor out = t.output();
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{24, 24}));
  auto weights = t.weights();
  ASSERT_EQ(weights.size(), 2u);
  at::Tensor ref = at::add(at::matmul(t.input(), weights[0]), weights[1]);
  EXPECT_TRUE(at::allclose(out, ref, 1e-5, 1e-5));
  EXPECT_DOUBLE_EQ(w->flopsPerForward(), 2.0 * 24 * 24 * 24 + 24 * 24);
}

TEST(Workloads, LinearIsXWtPlusBias) {
  WorkloadParams p = cpuParams("linear");
  p.batch = 10;
  p.dim = 7;
  p.out = 5;
  auto w = makeWorkload(p);
  EXPECT_EQ(w->regionLabel(), "linear_fwd");
  w->forward();
  TorchWorkload& t = torchOf(w);
  at::Tensor out = t.output();
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{10, 5}));
  auto weights = t.weights();
  ASSERT_EQ(weights.size(), 2u);
  EXPECT_EQ(weights[0].sizes(), (std::vector<int64_t>{5, 7}));
  at::Tensor ref = at::add(at::matmul(t.input(), weights[0].t()), weights[1]);
  EXPECT_TRUE(at::allclose(out, ref, 1e-5, 1e-5));
}

TEST(Workloads, GegluMlpMatchesAHandComposedReference) {
  WorkloadParams p = cpuParams("mlp");
  p.batch = 2;
  p.seq = 3;
  p.dim = 16;
  p.hidden = 40;
  auto w = makeWorkload(p);
  EXPECT_EQ(w->regionLabel(), "mlp_fwd");
  w->forward();
  TorchWorkload& t = torchOf(w);
  at::Tensor out = t.output();
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 3, 16}));
  auto ws = t.weights();  // gate, up, down
  ASSERT_EQ(ws.size(), 3u);
  EXPECT_EQ(ws[0].sizes(), (std::vector<int64_t>{40, 16}));
  EXPECT_EQ(ws[2].sizes(), (std::vector<int64_t>{16, 40}));
  at::Tensor x = t.input();
  at::Tensor gate = at::matmul(x, ws[0].t());
  at::Tensor up = at::matmul(x, ws[1].t());
  at::Tensor ref = at::matmul(at::mul(at::gelu(gate, "tanh"), up), ws[2].t());
  EXPECT_TRUE(at::allclose(out, ref, 1e-5, 1e-5));
  // The exact GELU gives a different result: the tanh form is really used.
  at::Tensor exact = at::matmul(at::mul(at::gelu(gate), up), ws[2].t());
  EXPECT_FALSE(at::allclose(out, exact, 1e-7, 1e-7));
}

TEST(Workloads, StackedMlpMatchesAHandComposedReference) {
  WorkloadParams p = cpuParams("mlp");
  p.variant = "stacked";
  p.batch = 2;
  p.seq = 3;
  p.dim = 8;
  p.hidden = 12;
  auto w = makeWorkload(p);
  w->forward();
  TorchWorkload& t = torchOf(w);
  auto ws = t.weights();
  ASSERT_EQ(ws.size(), 3u);
  EXPECT_EQ(ws[1].sizes(), (std::vector<int64_t>{12, 12}));
  at::Tensor h = at::gelu(at::matmul(t.input(), ws[0].t()));
  h = at::gelu(at::matmul(h, ws[1].t()));
  at::Tensor ref = at::matmul(h, ws[2].t());
  EXPECT_EQ(t.output().sizes(), (std::vector<int64_t>{2, 3, 8}));
  EXPECT_TRUE(at::allclose(t.output(), ref, 1e-5, 1e-5));
}

TEST(Workloads, ReducedPrecisionRunsOnTheCpu) {
  for (DType d : {DType::BF16, DType::FP16}) {
    WorkloadParams p = cpuParams("mlp");
    p.dtype = d;
    p.batch = 1;
    p.seq = 2;
    p.dim = 8;
    p.hidden = 16;
    auto w = makeWorkload(p);
    w->forward();
    EXPECT_EQ(torchOf(w).output().scalar_type(), scalarType(d)) << dtypeName(d);
  }
}

TEST(Workloads, TheSeedFixesWeightsAndInputs) {
  WorkloadParams p = cpuParams("linear");
  p.batch = 4;
  p.dim = 3;
  p.out = 2;
  auto a = makeWorkload(p);
  auto b = makeWorkload(p);
  p.seed = 7;
  auto c = makeWorkload(p);
  EXPECT_TRUE(at::equal(torchOf(a).weights()[0], torchOf(b).weights()[0]));
  EXPECT_TRUE(at::equal(torchOf(a).input(), torchOf(b).input()));
  EXPECT_FALSE(at::equal(torchOf(a).weights()[0], torchOf(c).weights()[0]));
}

TEST(Workloads, DescribeNamesShapesAndDtype) {
  WorkloadParams p = cpuParams("mlp");
  p.batch = 2;
  p.seq = 3;
  p.dim = 8;
  p.hidden = 12;
  std::string d = makeWorkload(p)->describe();
  EXPECT_NE(d.find("[2, 3, 8]"), std::string::npos) << d;
  EXPECT_NE(d.find("fp32"), std::string::npos) << d;
  EXPECT_NE(d.find("geglu"), std::string::npos) << d;
}

}  // namespace
}  // namespace fuselab
