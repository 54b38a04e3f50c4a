// The fused GeGLU MLP kernels against the LibTorch eager MLP (label gpu).
//
// Tolerance. x and the weights are the same bf16/fp16 values for every path, and
// the reference is the MLP on those values upcast to fp32, computed in fp32 (TF32
// off): its own error (~1e-6) is far below what is measured. What separates a path
// from it is rounding to bf16/fp16 (eps = 2^-8 / 2^-11) of the intermediates and of
// the output; fp32 accumulation over dim or hidden terms adds ~1e-6 and does not
// count. Eager rounds five times (gate, gelu, up, product, output); the fused
// kernels round twice (act and output), liger four times. So the fused error
// should be at most the eager error measured on the same inputs, and the test
// allows 1.25x that plus 0.1 eps of slack for the spread of a few hundred values
// at 1 token. The normwise bound misses a single wrong element among millions,
// so every element must also be within 4 eps * max|ref| (an output rounding is at
// most eps/2 * |y|), and every element must have been written (the output starts
// as NaN).
#include <gtest/gtest.h>

#ifdef FUSELAB_HAVE_CUDA
#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/DownGemmLt.h"
#include "kernels/FusedMlp.h"
#include "kernels/FusedMlpKernels.h"
#include "kernels/FusedMlpSmallMOnePass.h"
#include "kernels/TorchWorkload.h"
#include "kernels/WorkloadRegistry.h"

namespace fuselab {
namespace {

bool haveGpu() { return at::hasCUDA() && c10::cuda::device_count() > 0; }

#define SKIP_WITHOUT_GPU() \
  if (!haveGpu()) GTEST_SKIP() << "no CUDA GPU: the fused MLP kernels need one"

struct Inputs {
  at::Tensor x, gate, up, down;
};

Inputs randomInputs(int64_t tokens, int64_t dim, int64_t hidden, at::ScalarType dtype, uint64_t seed) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  auto make = [&](std::vector<int64_t> sizes, double scale) {
    return (at::randn(sizes, gen, at::kFloat) * scale).to(at::Device(at::kCUDA, 0), dtype);
  };
  return {make({tokens, dim}, 1.0), make({hidden, dim}, 1.0 / std::sqrt(double(dim))),
          make({hidden, dim}, 1.0 / std::sqrt(double(dim))), make({dim, hidden}, 1.0 / std::sqrt(double(hidden)))};
}

// The eager MLP of the tutorial (MlpWorkload): every op rounds to the input dtype.
at::Tensor eagerMlp(const Inputs& in) {
  return at::linear(at::gelu(at::linear(in.x, in.gate), "tanh") * at::linear(in.x, in.up), in.down);
}

at::Tensor reference32(const Inputs& in) {
  at::globalContext().setAllowTF32CuBLAS(false);
  const at::Tensor x = in.x.to(at::kFloat);
  const at::Tensor g = at::matmul(x, in.gate.to(at::kFloat).t());
  const at::Tensor u = at::matmul(x, in.up.to(at::kFloat).t());
  return at::matmul(at::gelu(g, "tanh") * u, in.down.to(at::kFloat).t());
}

struct Errors {
  double rel = 0, max_abs = 0;
  bool finite = false;
};

Errors errorsAgainst(const at::Tensor& out, const at::Tensor& ref) {
  const at::Tensor diff = out.to(at::kFloat) - ref;
  Errors e;
  e.finite = at::isfinite(out).all().item<bool>();
  e.rel = diff.norm().item<double>() / ref.norm().item<double>();
  e.max_abs = diff.abs().max().item<double>();
  return e;
}

double epsOf(at::ScalarType t) { return t == at::kBFloat16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11); }

struct Shape {
  int64_t dim, hidden;
};

using GridParam = std::tuple<int64_t /*tokens*/, int /*shape index*/, at::ScalarType>;
const Shape kShapes[] = {{768, 3072}, {776, 3080}, {136, 200}};

class FusedMlpGrid : public ::testing::TestWithParam<GridParam> {};

TEST_P(FusedMlpGrid, EveryVariantMatchesTheEagerMlp) {
  SKIP_WITHOUT_GPU();
  const auto [tokens, shape_index, dtype] = GetParam();
  const Shape shape = kShapes[shape_index];
  c10::cuda::CUDAGuard guard(0);
  const Inputs in = randomInputs(tokens, shape.dim, shape.hidden, dtype,
                                 1000 + uint64_t(tokens) * 7 + uint64_t(shape_index) * 3 + (dtype == at::kHalf));
  const at::Tensor ref = reference32(in);
  const Errors eager = errorsAgainst(eagerMlp(in), ref);
  const double eps = epsOf(dtype);
  const double max_ref = ref.abs().max().item<double>();
  ASSERT_TRUE(eager.finite);

  FusedMlp mlp(in.gate, in.up, in.down);
  const FusedMlpPath large = mlp.wgmmaAvailable() ? FusedMlpPath::Large : FusedMlpPath::LargeMma;
  EXPECT_EQ(mlp.resolve(tokens, FusedMlpPath::Auto), tokens <= kFusedMlpSmallMaxTokens ? FusedMlpPath::Small : large);
  std::vector<FusedMlpPath> paths = {FusedMlpPath::Auto, FusedMlpPath::Large, FusedMlpPath::LargeMma,
                                     FusedMlpPath::Liger};
  if (tokens <= kFusedMlpSmallMaxTokens) {
    paths.push_back(FusedMlpPath::Small);
    paths.push_back(FusedMlpPath::SmallDeterministic);
  }
  // On Hopper the one launch takes up to 128 tokens (65 and 127: row tiles, the
  // second one partly filled), but not of 776 x 3080: its 385 hidden 8-groups
  // do not split into whole L2 groups of one wave.
  if (tokens > kFusedMlpSmallMaxTokens && mlp.wgmmaAvailable() && tokens <= kFusedMlpSmallMaxTokensHopper &&
      shape.hidden != 3080) {
    paths.push_back(FusedMlpPath::Small);
  }
  for (FusedMlpPath path : paths) {
    at::Tensor y = at::full_like(in.x, std::numeric_limits<float>::quiet_NaN());
    mlp.forward(in.x, y, path);
    const Errors e = errorsAgainst(y, ref);
    const std::string what = "tokens " + std::to_string(tokens) + ", dim " + std::to_string(shape.dim) +
                              ", hidden " + std::to_string(shape.hidden) + ", " +
                              (dtype == at::kBFloat16 ? "bf16" : "fp16") + ", variant " +
                              fusedMlpPathName(path) + " (runs " + fusedMlpPathName(mlp.resolve(tokens, path)) + ")";
    std::printf("%-72s rel %.2e (eager %.2e)  max %.2e (eager %.2e)\n", what.c_str(), e.rel, eager.rel, e.max_abs,
                eager.max_abs);
    EXPECT_TRUE(e.finite) << what << ": some outputs were not written or are not finite";
    EXPECT_LE(e.rel, 1.25 * eager.rel + 0.1 * eps) << what;
    EXPECT_LE(e.max_abs, 4.0 * eps * max_ref) << what;
  }
}

std::string gridName(const ::testing::TestParamInfo<GridParam>& info) {
  const auto [tokens, shape_index, dtype] = info.param;
  const Shape s = kShapes[shape_index];
  return "m" + std::to_string(tokens) + "_d" + std::to_string(s.dim) + "_h" + std::to_string(s.hidden) + "_" +
         (dtype == at::kBFloat16 ? "bf16" : "fp16");
}

INSTANTIATE_TEST_SUITE_P(Shapes, FusedMlpGrid,
                         ::testing::Combine(::testing::Values<int64_t>(1, 3, 16, 64, 65, 127, 512, 1000, 8192),
                                            ::testing::Values(0, 1, 2),
                                            ::testing::Values(at::kBFloat16, at::kHalf)),
                         gridName);

// Every configuration of the two small-token kernels, driven directly, twice in
// a row on one workspace (the second launch checks that the first left it ready).
// Two phases: K rotation, atomic or fixed-order reduction (added up by the last
// slice at 1 and 17 tokens, by all slices at 64), cooperative or ordinary
// launch, 8 or 16 warps, ring depth, early start of the next launch.
// One pass: 1 to 4 hidden 8-groups per block (so K of the down GEMM is 8, 16,
// 24 or 32: k8 and k16 steps), early start or not, clusters (sm_90), L2 groups
// of 4 to 16 (blocks past the hidden units included), both (clusters loading x
// together) or neither, 1 to 16 blocks converting 1 to 4 accumulators; with L2
// groups, the Hopper kernel (wgmma, sm_90a) or the mma.sync one.
TEST(FusedMlp, SmallKernelConfigurationsMatchTheEagerMlp) {
  SKIP_WITHOUT_GPU();
  namespace fm = fusedmlp;
  constexpr fm::SmallMlpKernel kTwo = fm::SmallMlpKernel::TwoPhase, kOne = fm::SmallMlpKernel::OnePass;
  struct Config {
    fm::SmallMlpKernel kernel;
    bool rotate, atomic, cooperative;
    int warps, stages;  // stages 0: the planner's
    bool pdl;
    int groups;  // one pass: hidden 8-groups per block (0: the planner's)
    int cluster = 0;  // one pass: blocks per cluster (sm_90; 0: the planner's)
    int converters = 0;  // one pass: blocks that convert the accumulator (0: the planner's)
    int copies = 0;      // one pass: accumulators (0: the planner's)
    int l2_group = 0;    // one pass: blocks that share act through L2 (0: the planner's)
    int wgmma = 0;       // one pass with L2 groups: 1 the Hopper kernel where it fits, -1 mma.sync (0: the planner's)
  };
  const Config configs[] = {{kTwo, true, false, true, 8, 0, true, 0},    {kTwo, false, false, true, 8, 0, false, 0},
                            {kTwo, true, true, true, 8, 0, true, 0},     {kTwo, false, true, true, 8, 0, false, 0},
                            {kTwo, true, false, false, 8, 0, true, 0},   {kTwo, true, false, true, 16, 0, true, 0},
                            {kTwo, false, true, true, 16, 0, false, 0},  {kTwo, true, false, false, 16, 0, false, 0},
                            {kTwo, true, false, true, 8, 3, true, 0},    {kTwo, true, false, false, 8, 4, true, 0},
                            {kTwo, true, true, false, 16, 3, true, 0},   {kTwo, true, false, false, 16, 0, true, 0},
                            {kTwo, false, false, false, 8, 0, true, 0},  {kOne, true, true, false, 8, 0, true, 0},
                            {kOne, true, true, false, 8, 0, false, 0},   {kOne, true, true, false, 8, 0, true, 1},
                            {kOne, true, true, false, 8, 0, true, 2},    {kOne, true, true, false, 8, 0, true, 4},
                            {kOne, true, true, false, 8, 0, true, 0, 2},  {kOne, true, true, false, 8, 0, false, 3, 8},
                            {kOne, true, true, false, 8, 0, true, 0, 0, 1}, {kOne, true, true, false, 8, 0, true, 1, 1, 16},
                            {kOne, true, true, false, 8, 0, true, 0, 0, 0, 3},  {kOne, true, true, false, 8, 0, true, 4, 4, 1, 4},
                            {kOne, true, true, false, 8, 0, true, 0, 0, 0, 0, 8},  {kOne, true, true, false, 8, 0, false, 1, 0, 3, 1, 4},
                            {kOne, true, true, false, 8, 0, true, 4, 0, 0, 3, 16},
                            {kOne, true, true, false, 8, 0, true, 0, 2, 0, 0, 8},  {kOne, true, true, false, 8, 0, true, 1, 4, 3, 2, 4},
                            {kOne, true, true, false, 8, 0, true, 0, 0, 0, 0, 1},
                            {kOne, true, true, false, 8, 0, true, 0, 2, 0, 0, 8, 1},  {kOne, true, true, false, 8, 0, false, 1, 0, 3, 1, 4, 1},
                            {kOne, true, true, false, 8, 0, true, 2, 2, 0, 0, 16, 1}, {kOne, true, true, false, 8, 0, true, 4, 0, 0, 4, 2, 1},
                            {kOne, true, true, false, 8, 0, true, 0, 2, 0, 0, 8, -1}};
  // Where the Hopper kernel runs, the configurations that ask for it with the
  // planner's block width must get it at dim 768 (there it fits, and the 128
  // blocks of L2 groups are all resident at once).
  const bool hopper = fm::onePassWgmmaAvailable(0);
  for (const Shape shape : kShapes) {
    for (int64_t tokens : {1, 17, 64}) {
      for (at::ScalarType dtype : {at::kBFloat16, at::kHalf}) {
        const Inputs in = randomInputs(tokens, shape.dim, shape.hidden, dtype, 300 + tokens + shape.dim);
        const at::Tensor ref = reference32(in);
        const Errors eager = errorsAgainst(eagerMlp(in), ref);
        const double eps = epsOf(dtype);
        const double max_ref = ref.abs().max().item<double>();
        FusedMlp mlp(in.gate, in.up, in.down);
        const fm::ElemType type = dtype == at::kBFloat16 ? fm::ElemType::BF16 : fm::ElemType::FP16;
        for (const Config& c : configs) {
          fm::SmallMlpTuning tuning;
          tuning.kernel = c.kernel;
          tuning.a_groups = c.groups;
          tuning.cluster = c.cluster;
          tuning.converters = c.converters;
          tuning.copies = c.copies;
          tuning.l2_group = c.l2_group;
          tuning.wgmma = c.wgmma;
          if (c.kernel == kTwo) {
            tuning.warps = c.warps;
            tuning.stages = c.stages;
          }
          fm::SmallMlpPlan plan = fm::planSmallMlp(tokens, shape.dim, shape.hidden, type, 0, tuning);
          ASSERT_EQ(plan.one_pass, c.kernel == kOne);
          ASSERT_EQ(plan.warps, plan.wgmma ? 4 : c.warps);  // the Hopper kernel: one warpgroup
          if (c.wgmma < 0) ASSERT_FALSE(plan.wgmma);
          if (c.wgmma > 0 && hopper && shape.dim == 768 && c.groups == 0) ASSERT_TRUE(plan.wgmma);
          if (c.stages != 0) ASSERT_EQ(plan.stages, c.stages);
          if (c.groups != 0) ASSERT_LE(plan.a_groups, c.groups);  // narrower where shared memory is short
          if (plan.one_pass) {  // at most half the grid waits to convert; a team is a cluster or an L2 group
            if (plan.x_multicast) ASSERT_TRUE(plan.cluster > 1 && plan.l2_group > 1);
            if (c.l2_group != 0) ASSERT_LE(plan.l2_group, c.l2_group);
            ASSERT_GE(plan.converters, 1);
            ASSERT_LE(plan.converters, std::max(1, plan.grid / 2));
            if (c.converters != 0) ASSERT_LE(plan.converters, c.converters);
          }
          if (c.kernel == kTwo) {
            plan.rotate_k = c.rotate;
            plan.atomic_reduce = c.atomic;
            plan.cooperative = c.cooperative;
          }
          plan.pdl = plan.pdl && c.pdl;  // where the device has it
          const at::Tensor ws = at::zeros({int64_t(plan.workspace_bytes)}, in.x.options().dtype(at::kByte));
          const std::string what = "tokens " + std::to_string(tokens) + ", dim " + std::to_string(shape.dim) +
                                   ", hidden " + std::to_string(shape.hidden) + (dtype == at::kHalf ? ", fp16" : ", bf16") +
                                   (plan.one_pass ? ", one pass, groups " + std::to_string(plan.a_groups) + ", cluster " +
                                                        std::to_string(plan.cluster) + ", L2 group " +
                                                        std::to_string(plan.l2_group) + ", x multicast " +
                                                        std::to_string(plan.x_multicast) + ", wgmma " +
                                                        std::to_string(plan.wgmma) + ", converters " +
                                                        std::to_string(plan.converters)
                                                  : ", two phases") +
                                   ", rotate " + std::to_string(c.rotate) + ", atomic " + std::to_string(c.atomic) +
                                   ", cooperative " + std::to_string(c.cooperative) + ", warps " +
                                   std::to_string(c.warps) + ", stages " + std::to_string(plan.stages) + ", pdl " +
                                   std::to_string(plan.pdl);
          for (int launch = 0; launch < 2; ++launch) {
            at::Tensor y = at::full_like(in.x, std::numeric_limits<float>::quiet_NaN());
            fm::launchSmallMlp(plan, type, in.x.data_ptr(), mlp.gateUpInterleaved().data_ptr(),
                               mlp.downWeight().data_ptr(), y.data_ptr(), ws.data_ptr(),
                               at::cuda::getCurrentCUDAStream().stream());
            const Errors e = errorsAgainst(y, ref);
            EXPECT_TRUE(e.finite) << what << ", launch " << launch;
            EXPECT_LE(e.rel, 1.25 * eager.rel + 0.1 * eps) << what << ", launch " << launch;
            EXPECT_LE(e.max_abs, 4.0 * eps * max_ref) << what << ", launch " << launch;
          }
        }
      }
    }
  }
}

// With the early start (pdl), a launch loads its weights while the previous one
// is still running. A chain of back-to-back launches where each output is the
// next input, on one workspace, must give what the same chain gives with every
// launch waiting for the previous one: the same bits (two phases, fixed-order
// sums), or the same values up to the order of the atomic additions (one pass;
// reading a stale input or accumulator would be off by the whole output).
TEST(FusedMlp, SmallKernelChainedLaunchesStartEarlySafely) {
  SKIP_WITHOUT_GPU();
  namespace fm = fusedmlp;
  for (auto [tokens, kernel] : {std::pair{int64_t(1), fm::SmallMlpKernel::TwoPhase}, {64, fm::SmallMlpKernel::TwoPhase},
                                {1, fm::SmallMlpKernel::OnePass}, {64, fm::SmallMlpKernel::OnePass},
                                {128, fm::SmallMlpKernel::OnePass}}) {
    if (tokens > fm::kSmallMaxTokens && !fm::onePassWgmmaAvailable(0)) {
      std::printf("%ld tokens not run: they take the Hopper one-pass kernel, which this GPU does not run\n",
                  long(tokens));
      continue;
    }
    const Inputs in = randomInputs(tokens, 768, 3072, at::kBFloat16, 900 + tokens);
    // GeGLU is quadratic in x, so along a chain the scale squares at every link:
    // these factors keep it near 1 for the chain's few links (checked below).
    FusedMlp mlp(in.gate * 1.3, in.up * 1.3, in.down);
    fm::SmallMlpTuning tuning;
    tuning.kernel = kernel;
    fm::SmallMlpPlan plan = fm::planSmallMlp(tokens, 768, 3072, fm::ElemType::BF16, 0, tuning);
    ASSERT_EQ(plan.one_pass, kernel == fm::SmallMlpKernel::OnePass);
    if (!plan.pdl) {
      GTEST_SKIP() << "this GPU has no programmatic dependent launch (compute capability 9.0 and newer)";
    }
    constexpr int kChain = 6;
    auto chain = [&](bool pdl) {
      fm::SmallMlpPlan p = plan;
      p.pdl = pdl;
      const at::Tensor ws = at::zeros({int64_t(p.workspace_bytes)}, in.x.options().dtype(at::kByte));
      std::vector<at::Tensor> out{in.x};
      for (int i = 0; i < kChain; ++i) out.push_back(at::full_like(in.x, std::numeric_limits<float>::quiet_NaN()));
      c10::cuda::device_synchronize();
      for (int i = 0; i < kChain; ++i) {
        fm::launchSmallMlp(p, fm::ElemType::BF16, out[i].data_ptr(), mlp.gateUpInterleaved().data_ptr(),
                           mlp.downWeight().data_ptr(), out[i + 1].data_ptr(), ws.data_ptr(),
                           at::cuda::getCurrentCUDAStream().stream());
      }
      c10::cuda::device_synchronize();
      return out;
    };
    const std::vector<at::Tensor> serial = chain(false), early = chain(true);
    for (int i = 1; i <= kChain; ++i) {
      const double norm = serial[i].to(at::kFloat).norm().item<double>();
      ASSERT_TRUE(std::isfinite(norm) && norm > 1e-3)
          << "link " << i << " has norm " << norm << ": the chain blew up or faded out, so it would prove nothing";
      const std::string what = "tokens " + std::to_string(tokens) + (plan.one_pass ? ", one pass" : ", two phases") +
                               ", link " + std::to_string(i);
      if (plan.one_pass) {
        const double diff = (serial[i].to(at::kFloat) - early[i].to(at::kFloat)).norm().item<double>();
        EXPECT_LE(diff, 0.05 * norm) << what;
      } else {
        EXPECT_TRUE(at::equal(serial[i], early[i])) << what;
      }
    }
  }
}

// Checked before any CUDA call, so this runs without a GPU too.
TEST(FusedMlp, SmallKernelPlannerRejectsTuningsOutsideItsRanges) {
  namespace fm = fusedmlp;
  fm::SmallMlpTuning tuning;
  // Past 64 tokens only the Hopper one pass runs, and nothing past 128.
  EXPECT_THROW(fm::planSmallMlp(0, 768, 3072, fm::ElemType::BF16, 0, tuning), std::invalid_argument);
  EXPECT_THROW(fm::planSmallMlp(fm::kOnePassWgmmaMaxTokens + 1, 768, 3072, fm::ElemType::BF16, 0, tuning),
               std::invalid_argument);
  tuning.kernel = fm::SmallMlpKernel::TwoPhase;
  EXPECT_THROW(fm::planSmallMlp(65, 768, 3072, fm::ElemType::BF16, 0, tuning), std::invalid_argument);
  tuning.kernel = fm::SmallMlpKernel::Auto;
  tuning.wgmma = -1;
  EXPECT_THROW(fm::planSmallMlp(100, 768, 3072, fm::ElemType::BF16, 0, tuning), std::invalid_argument);
  tuning.wgmma = 0;
  tuning.warps = 12;
  EXPECT_THROW(fm::planSmallMlp(1, 768, 3072, fm::ElemType::BF16, 0, tuning), std::invalid_argument);
  tuning.warps = 8;
  tuning.stages = 5;
  EXPECT_THROW(fm::planSmallMlp(1, 768, 3072, fm::ElemType::BF16, 0, tuning), std::invalid_argument);
  tuning.stages = 0;
  tuning.cluster = 3;
  EXPECT_THROW(fm::planSmallMlp(1, 768, 3072, fm::ElemType::BF16, 0, tuning), std::invalid_argument);
  tuning.cluster = 0;
  for (int copies : {-1, 5}) {
    tuning.copies = copies;
    EXPECT_THROW(fm::planSmallMlp(1, 768, 3072, fm::ElemType::BF16, 0, tuning), std::invalid_argument) << copies;
  }
  tuning.copies = 0;
  for (int l2_group : {-1, 17}) {
    tuning.l2_group = l2_group;
    EXPECT_THROW(fm::planSmallMlp(1, 768, 3072, fm::ElemType::BF16, 0, tuning), std::invalid_argument) << l2_group;
  }
  tuning.l2_group = 0;
  for (int wgmma : {-2, 2}) {
    tuning.wgmma = wgmma;
    EXPECT_THROW(fm::planSmallMlp(1, 768, 3072, fm::ElemType::BF16, 0, tuning), std::invalid_argument) << wgmma;
  }
  tuning.wgmma = 0;
  for (int converters : {-1, 65}) {
    tuning.converters = converters;
    EXPECT_THROW(fm::planSmallMlp(1, 768, 3072, fm::ElemType::BF16, 0, tuning), std::invalid_argument) << converters;
  }
}

TEST(FusedMlp, DeterministicPathsGiveTheSameBitsEveryRun) {
  SKIP_WITHOUT_GPU();
  for (int64_t tokens : {7, 64, 300}) {
    const Inputs in = randomInputs(tokens, 768, 3072, at::kBFloat16, 77 + tokens);
    FusedMlp mlp(in.gate, in.up, in.down);
    const FusedMlpPath first = tokens <= kFusedMlpSmallMaxTokens ? FusedMlpPath::SmallDeterministic : FusedMlpPath::Auto;
    for (FusedMlpPath path : {first, FusedMlpPath::LargeMma}) {
      at::Tensor a = at::full_like(in.x, std::numeric_limits<float>::quiet_NaN());
      at::Tensor b = at::full_like(in.x, std::numeric_limits<float>::quiet_NaN());
      mlp.forward(in.x, a, path);
      mlp.forward(in.x, b, path);  // also checks that the first launch left the workspace ready
      EXPECT_TRUE(at::isfinite(b).all().item<bool>()) << "tokens " << tokens << ", " << fusedMlpPathName(path);
      EXPECT_TRUE(at::equal(a, b)) << "tokens " << tokens << ", " << fusedMlpPathName(path);
    }
  }
}

// The two-phase kernel's fixed-order sums are added in slice order whether the
// last slice of a column tile adds up the whole tile or every slice a share of
// it (split_sums): the same bits either way, launch after launch.
TEST(FusedMlp, SplitAndUnsplitSlicesAddUpToTheSameBits) {
  SKIP_WITHOUT_GPU();
  namespace fm = fusedmlp;
  for (int64_t tokens : {1, 40, 64}) {
    const Inputs in = randomInputs(tokens, 776, 3080, at::kHalf, 500 + tokens);
    FusedMlp mlp(in.gate, in.up, in.down);
    fm::SmallMlpTuning tuning;
    tuning.kernel = fm::SmallMlpKernel::TwoPhase;
    fm::SmallMlpPlan plan = fm::planSmallMlp(tokens, 776, 3080, fm::ElemType::FP16, 0, tuning);
    ASSERT_GT(plan.b_slices, 1) << "tokens " << tokens;
    at::Tensor y[2][2];
    for (int split = 0; split < 2; ++split) {
      plan.split_sums = split == 1;
      const at::Tensor ws = at::zeros({int64_t(plan.workspace_bytes)}, in.x.options().dtype(at::kByte));
      for (int launch = 0; launch < 2; ++launch) {
        y[split][launch] = at::full_like(in.x, std::numeric_limits<float>::quiet_NaN());
        fm::launchSmallMlp(plan, fm::ElemType::FP16, in.x.data_ptr(), mlp.gateUpInterleaved().data_ptr(),
                           mlp.downWeight().data_ptr(), y[split][launch].data_ptr(), ws.data_ptr(),
                           at::cuda::getCurrentCUDAStream().stream());
      }
    }
    EXPECT_TRUE(at::isfinite(y[0][0]).all().item<bool>()) << "tokens " << tokens;
    for (int i = 1; i < 4; ++i) EXPECT_TRUE(at::equal(y[0][0], y[i / 2][i % 2])) << "tokens " << tokens << ", run " << i;
  }
}

// One FusedMlp keeps a plan per token count; the small kernels' plans for more
// and fewer tokens (more or less shared memory for the same kernel, the other
// kernel, another workspace layout) must keep working when used in turn.
TEST(FusedMlp, SmallPlansForSeveralTokenCountsWorkInTurn) {
  SKIP_WITHOUT_GPU();
  const Inputs big = randomInputs(32, 768, 3072, at::kBFloat16, 41);
  const Inputs one{big.x.narrow(0, 0, 1).contiguous(), big.gate, big.up, big.down};
  const at::Tensor ref_big = reference32(big), ref_one = reference32(one);
  FusedMlp mlp(big.gate, big.up, big.down);
  for (int round = 0; round < 2; ++round) {
    for (FusedMlpPath path : {FusedMlpPath::Small, FusedMlpPath::SmallDeterministic}) {
      for (const auto& [in, ref] : {std::pair{&big, &ref_big}, std::pair{&one, &ref_one}}) {
        at::Tensor y = at::full_like(in->x, std::numeric_limits<float>::quiet_NaN());
        mlp.forward(in->x, y, path);
        const Errors e = errorsAgainst(y, *ref);
        const Errors eager = errorsAgainst(eagerMlp(*in), *ref);
        const std::string what = "round " + std::to_string(round) + ", " + fusedMlpPathName(path) + ", tokens " +
                                 std::to_string(in->x.size(0));
        EXPECT_TRUE(e.finite) << what;
        EXPECT_LE(e.rel, 1.25 * eager.rel + 0.1 * epsOf(at::kBFloat16)) << what;
      }
    }
  }
}

// The large path runs its first forward at a token count launch by launch
// (timing the down GEMM's algorithms) and replays a recorded graph after that;
// a new input tensor, output tensor or token count records it again.
TEST(FusedMlp, LargePathReplaysAndRecordsAgainWhenTheOperandsChange) {
  SKIP_WITHOUT_GPU();
  const Inputs a = randomInputs(512, 768, 3072, at::kBFloat16, 61);
  const Inputs b{randomInputs(512, 768, 3072, at::kBFloat16, 62).x, a.gate, a.up, a.down};
  const Inputs c{a.x.narrow(0, 0, 300).contiguous(), a.gate, a.up, a.down};
  FusedMlp mlp(a.gate, a.up, a.down);
  for (FusedMlpPath path : {FusedMlpPath::Large, FusedMlpPath::LargeMma}) {
    for (const Inputs* in : {&a, &a, &a, &b, &a, &c, &c, &a}) {
      at::Tensor y = at::full_like(in->x, std::numeric_limits<float>::quiet_NaN());
      mlp.forward(in->x, y, path);
      mlp.forward(in->x, y, path);  // the same operands twice: the second is a replay
      const at::Tensor ref = reference32(*in);
      const Errors e = errorsAgainst(y, ref), eager = errorsAgainst(eagerMlp(*in), ref);
      const std::string what = fusedMlpPathName(path) + ", tokens " + std::to_string(in->x.size(0));
      EXPECT_TRUE(e.finite) << what;
      EXPECT_LE(e.rel, 1.25 * eager.rel + 0.1 * epsOf(at::kBFloat16)) << what;
    }
  }
}

// Every form of the Hopper GeGLU GEMM (the tile shapes) gives act =
// gelu_tanh(x gate^T) * (x up^T), including partial tiles (token counts and
// hidden sizes that are no multiple of the tiles), and its bulk stores leave
// the memory after act alone.
TEST(FusedMlp, EveryGegluGemmFormMatchesTheReference) {
  SKIP_WITHOUT_GPU();
  if (!fusedmlp::gegluGemmWgmmaAvailable(0)) GTEST_SKIP() << "the wgmma kernels need an sm_90a GPU (H100/H200)";
  namespace fm = fusedmlp;
  for (const auto& [tokens, dim, hidden] : {std::tuple<int64_t, int64_t, int64_t>{1, 768, 3072}, {100, 776, 3080},
                                            {512, 768, 3072}, {1000, 136, 200}, {2048, 768, 3072}}) {
    const Inputs in = randomInputs(tokens, dim, hidden, at::kBFloat16, 70 + uint64_t(tokens));
    FusedMlp mlp(in.gate, in.up, in.down);
    const at::Tensor x32 = in.x.to(at::kFloat);
    const at::Tensor ref = at::gelu(at::matmul(x32, in.gate.to(at::kFloat).t()), "tanh") *
                           at::matmul(x32, in.up.to(at::kFloat).t());
    for (fm::GegluTile tile : fm::kGegluTileForms) {
      const at::Tensor guarded = at::full({tokens + 1, hidden}, std::numeric_limits<float>::quiet_NaN(), in.x.options());
      const at::Tensor act = guarded.narrow(0, 0, tokens);
      fm::GegluGemmMaps maps;
      fm::encodeGegluGemmMaps(maps, fm::ElemType::BF16, in.x.data_ptr(), mlp.gateUpInterleaved().data_ptr(),
                              act.data_ptr(), tokens, dim, hidden, tile);
      fm::launchGegluGemmWgmma(maps, fm::ElemType::BF16, tokens, dim, hidden, at::cuda::getCurrentCUDAStream().stream());
      const Errors e = errorsAgainst(act, ref);
      const std::string what = std::string(fm::gegluTileName(tile)) + ", tokens " + std::to_string(tokens) +
                               ", dim " + std::to_string(dim) + ", hidden " + std::to_string(hidden);
      EXPECT_TRUE(e.finite) << what << ": some act values were not written";
      EXPECT_TRUE(guarded[tokens].isnan().all().item<bool>()) << what << ": the row after act was written";
      EXPECT_LE(e.rel, 2 * epsOf(at::kBFloat16)) << what;  // one rounding of act to bf16
    }
  }
}

// The down GEMM times cuBLASLt's candidates and their variants (split of K,
// cluster shape) and keeps the fastest, which may differ from run to run:
// each of them must give y.
TEST(FusedMlp, EveryDownGemmCandidateMatchesTheReference) {
  SKIP_WITHOUT_GPU();
  const int64_t dim = 768, hidden = 3072;
  for (int64_t tokens : {100, 256, 512}) {
    at::Generator gen = at::detail::createCPUGenerator(90 + uint64_t(tokens));
    const at::Tensor act = at::randn({tokens, hidden}, gen, at::kFloat).to(at::Device(at::kCUDA, 0), at::kBFloat16);
    const at::Tensor down = (at::randn({dim, hidden}, gen, at::kFloat) / std::sqrt(double(hidden)))
                                .to(at::Device(at::kCUDA, 0), at::kBFloat16);
    at::globalContext().setAllowTF32CuBLAS(false);
    const at::Tensor ref = at::matmul(act.to(at::kFloat), down.to(at::kFloat).t());
    const cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
    DownGemmLt gemm(dim, hidden, true, 0);
    at::Tensor y = at::empty({tokens, dim}, act.options());
    gemm.run(act.data_ptr(), down.data_ptr(), y.data_ptr(), tokens, stream);  // plans and times the candidates
    const int count = gemm.candidateCount(tokens);
    EXPECT_GT(count, 1) << tokens << " tokens";
    for (int k = 0; k < count; ++k) {
      y.fill_(std::numeric_limits<float>::quiet_NaN());
      gemm.runCandidate(k, act.data_ptr(), down.data_ptr(), y.data_ptr(), tokens, stream);
      const Errors e = errorsAgainst(y, ref);
      EXPECT_TRUE(e.finite) << tokens << " tokens, candidate " << k << ": some values were not written";
      EXPECT_LE(e.rel, 2 * epsOf(at::kBFloat16)) << tokens << " tokens, candidate " << k;  // one rounding of y
    }
    EXPECT_THROW(gemm.runCandidate(count, act.data_ptr(), down.data_ptr(), y.data_ptr(), tokens, stream),
                 std::out_of_range);
  }
}

// Kernel nodes in a CUDA graph of one forward: what a capture would show per step.
int kernelsInOneForward(FusedMlp& mlp, const at::Tensor& x, at::Tensor& y, FusedMlpPath path) {
  c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, 0);
  c10::cuda::CUDAStreamGuard on_side(side);
  mlp.forward(x, y, path);  // workspaces and cuBLAS state exist before the capture
  c10::cuda::device_synchronize();
  at::cuda::CUDAGraph graph(/*keep_graph=*/true);
  graph.capture_begin();
  mlp.forward(x, y, path);
  graph.capture_end();
  size_t count = 0;
  EXPECT_EQ(cudaGraphGetNodes(graph.raw_cuda_graph(), nullptr, &count), cudaSuccess);
  std::vector<cudaGraphNode_t> nodes(count);
  EXPECT_EQ(cudaGraphGetNodes(graph.raw_cuda_graph(), nodes.data(), &count), cudaSuccess);
  int kernels = 0;
  for (cudaGraphNode_t n : nodes) {
    cudaGraphNodeType type{};
    cudaGraphNodeGetType(n, &type);
    kernels += type == cudaGraphNodeTypeKernel;
  }
  return kernels;
}

TEST(FusedMlp, KernelsPerForward) {
  SKIP_WITHOUT_GPU();
  for (int64_t tokens : {1, 64, 128, 8192}) {
    const Inputs in = randomInputs(tokens, 768, 3072, at::kBFloat16, 5);
    FusedMlp mlp(in.gate, in.up, in.down);
    at::Tensor y = at::empty_like(in.x);
    const int fused = kernelsInOneForward(mlp, in.x, y, FusedMlpPath::Auto);
    const int liger = kernelsInOneForward(mlp, in.x, y, FusedMlpPath::Liger);
    std::printf("tokens %ld: auto (%s) %d kernel(s), liger %d kernel(s)\n", long(tokens),
                fusedMlpPathName(mlp.resolve(tokens, FusedMlpPath::Auto)).c_str(), fused, liger);
    // Where cuBLAS splits K for a GEMM, it adds the splits in a kernel of its
    // own: the large path runs 2 or 3 kernels, liger 4 or 5 (H200: 5 at 1-128
    // tokens, 4 at 8192).
    EXPECT_GE(liger, 4) << "tokens " << tokens;
    EXPECT_LE(liger, 5) << "tokens " << tokens;
    if (tokens <= kFusedMlpSmallMaxTokens) {
      EXPECT_EQ(fused, 1) << "tokens " << tokens;
    } else {
      EXPECT_GE(fused, 2) << "tokens " << tokens;
      EXPECT_LE(fused, 3) << "tokens " << tokens;
    }
  }
}

// The workload builds the eager mlp's weights and input for the same seed, so the
// two compare directly, also when replayed as a CUDA graph.
TEST(FusedMlpWorkload, SameTensorsAsTheEagerMlpAndGraphReplayMatches) {
  SKIP_WITHOUT_GPU();
  for (auto [variant, seq] : {std::pair<std::string, int64_t>{"small", 16}, {"small_deterministic", 16},
                              {"auto", 16}, {"large", 384}, {"liger", 384}}) {
    WorkloadParams p;
    p.batch = 2;
    p.seq = seq;
    p.seed = 11;
    p.workload = "mlp";
    p.variant = "geglu";
    auto eager = makeWorkload(p);
    p.workload = "fused_mlp";
    p.variant = variant;
    auto fused = makeWorkload(p);
    p.graph = true;
    auto graphed = makeWorkload(p);
    EXPECT_NE(fused->describe().find("fused_mlp"), std::string::npos);
    EXPECT_EQ(fused->regionLabel(), "mlp_fwd");

    auto& e = dynamic_cast<TorchWorkload&>(*eager);
    auto& f = dynamic_cast<TorchWorkload&>(*fused);
    auto& g = dynamic_cast<TorchWorkload&>(*graphed);
    ASSERT_TRUE(at::equal(e.input(), f.input())) << variant;
    for (size_t i = 0; i < 3; ++i) ASSERT_TRUE(at::equal(e.weights()[i], f.weights()[i])) << variant << " weight " << i;

    eager->forward();
    fused->forward();
    graphed->forward();
    graphed->synchronize();
    const Inputs in{e.input().view({-1, p.dim}), e.weights()[0], e.weights()[1], e.weights()[2]};
    const at::Tensor ref = reference32(in);
    const Errors eager_err = errorsAgainst(e.output().view({-1, p.dim}), ref);
    const Errors fused_err = errorsAgainst(f.output().view({-1, p.dim}), ref);
    EXPECT_LE(fused_err.rel, 1.25 * eager_err.rel + 0.1 * epsOf(at::kBFloat16)) << variant;
    // The graph replays the same kernels on the same inputs: bit-identical output,
    // except where the kernel may add its partial sums with atomics in no fixed
    // order (small, and auto where it runs small): the same values up to that order.
    const FusedMlpPath path = parseFusedMlpPath(variant);
    if (path == FusedMlpPath::Small || path == FusedMlpPath::Auto) {
      const Errors graph_err = errorsAgainst(g.output().view({-1, p.dim}), ref);
      EXPECT_LE(graph_err.rel, 1.25 * eager_err.rel + 0.1 * epsOf(at::kBFloat16)) << variant;
      const double diff = (g.output().to(at::kFloat) - f.output().to(at::kFloat)).norm().item<double>();
      EXPECT_LE(diff, 0.01 * f.output().to(at::kFloat).norm().item<double>()) << variant;
    } else {
      EXPECT_TRUE(at::equal(g.output(), f.output())) << variant;
    }
  }
}

}  // namespace
}  // namespace fuselab

#else  // a build without CUDA has no fused kernels to test

TEST(FusedMlp, NeedsCuda) { GTEST_SKIP() << "no CUDA GPU: this fuselab build has no CUDA"; }

#endif
