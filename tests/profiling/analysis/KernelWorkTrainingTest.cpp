// Work per GPU op in a training step: a fused optimizer's parameters from
// the accumulated gradients, a list's dtype from its kernel, helpers nested
// in an op, graph replays matched to eager launches, and the coverage of the
// real torch.profiler traces in tests/data/training-h200/.
#include <gtest/gtest.h>

#include <string>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/work/KernelWork.h"
#include "profiling/analysis/work/KernelWorkInputs.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/SyntheticTrace.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

using test::SyntheticTrace;

std::vector<GpuOpWork> workOf(const Trace& t) { return attributeWork(t, findAnalysisScope(t).gpu_ops); }

const GpuOpWork& byName(const Trace& t, const std::vector<GpuOpWork>& w, std::string_view name) {
  for (const GpuOpWork& x : w)
    if (t.name(x.op) == name) return x;
  throw std::runtime_error("no GPU op " + std::string(name));
}

std::string accumulate(const std::string& dims) {
  return R"({"Input Dims": [)" + dims + R"(], "Input type": ["float"]})";
}

TEST(KernelWorkTraining, AFusedOptimizerWithoutListDimsTakesTheAccumulatedGradients) {
  // Two steps: each backward accumulates two gradients, then _fused_adamw_
  // runs with its lists' dims left out (as torch.profiler leaves them for
  // lists of over 30 tensors).
  const std::string adamw = R"({"Input Dims": [[], [], [], [], [], []], "Input type": ["TensorList",
      "TensorList", "TensorList", "TensorList", "TensorList", "TensorList"]})";
  const std::string kernel = "multi_tensor_apply_kernel<FusedAdamMathFunctor<float, 4>>";
  Trace t = SyntheticTrace()
                .op("torch::autograd::AccumulateGrad", 0, 1'000, accumulate("[1024, 1024]"))
                .op("torch::autograd::AccumulateGrad", 2'000, 1'000, accumulate("[1024]"))
                .op("aten::_fused_adamw_", 10'000, 5'000, adamw)
                .launched(kernel, 11'000, 1'000, 13'000, 20'000, 1)
                .op("torch::autograd::AccumulateGrad", 40'000, 1'000, accumulate("[64]"))
                .op("aten::_fused_adamw_", 50'000, 5'000, adamw)
                .launched(kernel + " ", 51'000, 1'000, 53'000, 1'000, 2)
                .build();
  const auto w = workOf(t);
  const GpuOpWork& first = byName(t, w, kernel);
  ASSERT_TRUE(first.work) << first.note;
  EXPECT_DOUBLE_EQ(first.work->bytes, 7 * (1024.0 * 1024 + 1024) * 4);
  EXPECT_DOUBLE_EQ(first.work->flops, 15 * (1024.0 * 1024 + 1024));
  EXPECT_NE(first.note.find("the 2 gradients accumulated"), std::string::npos) << first.note;
  const GpuOpWork& second = byName(t, w, kernel + " ");
  ASSERT_TRUE(second.work) << second.note;
  EXPECT_DOUBLE_EQ(second.work->bytes, 7 * 64.0 * 4);  // only the gradient since the first step
}

TEST(KernelWorkTraining, AListsDtypeComesFromItsKernelsName) {
  EXPECT_EQ(kernelElementType("CatArrayBatchedCopy<at::native::OpaqueType<2u>, unsigned int, 4, 64, 64>"), "short");
  EXPECT_EQ(kernelElementType("FusedAdamMathFunctor<float, 4, 1, false>"), "float");
  EXPECT_EQ(kernelElementType("reduce_kernel<ReduceOp<c10::BFloat16, float>>"), "c10::BFloat16");
  EXPECT_EQ(kernelElementType("floating_kernel<int>"), "");  // "float" only as a whole word
  const std::string cat = R"({"Input Dims": [[[4, 8], [4, 8]], []], "Input type": ["TensorList", "Scalar"]})";
  Trace t = SyntheticTrace()
                .op("aten::cat", 0, 5'000, cat)
                .launched("CatArrayBatchedCopy<at::native::OpaqueType<2u>, unsigned int, 4>", 1'000, 1'000, 3'000,
                          2'000, 1)
                .build();
  const auto w = workOf(t);
  ASSERT_TRUE(w.front().work) << w.front().note;
  EXPECT_DOUBLE_EQ(w.front().work->bytes, 2 * 64.0 * 2);
}

TEST(KernelWorkTraining, NestedHelpersCountApartAndACompositeKeepsOnlyWhatIsLeft) {
  // nll_loss_backward zeroes its gradient (a nested zero_) and scatters into
  // it (its own kernel): both keep their work.
  const std::string nll = R"({"Input Dims": [[], [4096, 8192], [4096], [], [], [], []],
      "Input type": ["float", "float", "long int", "", "Scalar", "Scalar", "float"]})";
  // An attention op around a bmm that already counts more than it: its own
  // kernel gets nothing (no double counting).
  const std::string sdpa = R"({"Input Dims": [[1, 1, 64, 64], [1, 1, 64, 64], [1, 1, 64, 64]],
      "Input type": ["float", "float", "float"], "Concrete Inputs": ["", "", ""]})";
  const std::string bmm = R"({"Input Dims": [[1, 64, 64], [1, 64, 64]], "Input type": ["float", "float"]})";
  Trace t = SyntheticTrace()
                .op("aten::nll_loss_backward", 0, 10'000, nll)
                .op("aten::zero_", 1'000, 2'000, R"({"Input Dims": [[4096, 8192]], "Input type": ["float"]})")
                .launched("FillFunctor", 1'500, 500, 20'000, 5'000, 1)
                .launched("nll_loss_backward_reduce_cuda_kernel", 5'000, 500, 30'000, 1'000, 2)
                .op("aten::scaled_dot_product_attention", 50'000, 10'000, sdpa)
                .op("aten::bmm", 51'000, 2'000, bmm)
                .op("aten::bmm", 54'000, 2'000, bmm)
                .launched("gemm", 51'500, 500, 70'000, 1'000, 3)
                .launched("gemm ", 54'500, 500, 72'000, 1'000, 4)
                .launched("triu_tril_kernel", 57'000, 500, 74'000, 1'000, 5)
                .build();
  const auto w = workOf(t);
  const GpuOpWork& fill = byName(t, w, "FillFunctor");
  ASSERT_TRUE(fill.work) << fill.note;
  EXPECT_DOUBLE_EQ(fill.work->bytes, 4096.0 * 8192 * 4);
  const GpuOpWork& scatter = byName(t, w, "nll_loss_backward_reduce_cuda_kernel");
  ASSERT_TRUE(scatter.work) << scatter.note;
  EXPECT_DOUBLE_EQ(scatter.work->bytes, 4096.0 * 8 + 4096.0 * 4);
  const GpuOpWork& tril = byName(t, w, "triu_tril_kernel");
  EXPECT_FALSE(tril.work);
  EXPECT_NE(tril.note.find("whose work a nested op already counts"), std::string::npos) << tril.note;
}

TEST(KernelWorkTraining, AGraphReplayTakesTheWorkOfTheSameKernelLaunchedEagerly) {
  const std::string mm = R"({"Input Dims": [[512, 768], [768, 3072]], "Input type": ["c10::BFloat16",
      "c10::BFloat16"]})";
  Trace t = SyntheticTrace()
                .op("aten::mm", 0, 5'000, mm)
                .launch(1, 1'000, 1'000)
                .gpuWithArgs("nvjet_gemm", 3'000, 10'000, 1, Category::Kernel, R"({"grid": [24, 4, 1]})")
                .launch(2, 20'000, 2'000, "cudaGraphLaunch")
                .gpuWithArgs("nvjet_gemm", 25'000, 9'000, 2, Category::Kernel, R"({"grid": [24, 4, 1]})")
                .gpuWithArgs("nvjet_gemm", 35'000, 9'000, 2, Category::Kernel, R"({"grid": [48, 4, 1]})")
                .build();
  const auto w = workOf(t);
  ASSERT_EQ(w.size(), 3u);
  ASSERT_TRUE(w[0].work) << w[0].note;
  ASSERT_TRUE(w[1].work) << w[1].note;  // same name and grid: the eager launch's work
  EXPECT_DOUBLE_EQ(w[1].work->flops, 2.0 * 512 * 768 * 3072);
  EXPECT_NE(w[1].note.find("launched eagerly"), std::string::npos) << w[1].note;
  EXPECT_FALSE(w[2].work);  // another grid: unknown, and says so
  EXPECT_NE(w[2].note.find("no earlier eager launch"), std::string::npos) << w[2].note;
}

TEST(KernelWorkTraining, OpsThatDifferOnlyInStridesAreWorkedOutApart) {
  auto gather = [](const std::string& index_strides) {
    return R"({"Input Dims": [[64, 8], [], [32, 8]], "Input type": ["float", "Scalar", "long int"],
        "Input Strides": [[8, 1], [], )" + index_strides + "]}";
  };
  Trace t = SyntheticTrace()
                .op("aten::gather", 0, 5'000, gather("[8, 1]"))
                .launched("gather_kernel", 1'000, 500, 2'000, 1'000, 1)
                .op("aten::gather", 10'000, 5'000, gather("[1, 0]"))  // an expanded index
                .launched("gather_kernel ", 11'000, 500, 12'000, 1'000, 2)
                .build();
  const auto w = workOf(t);
  ASSERT_TRUE(w[0].work && w[1].work);
  EXPECT_DOUBLE_EQ(w[0].work->bytes, 32.0 * 8 * 8 + 2 * 32.0 * 8 * 4);
  EXPECT_DOUBLE_EQ(w[1].work->bytes, 32.0 * 8 + 2 * 32.0 * 8 * 4);
}

// Share of kernel time whose work is known in one of our torch.profiler traces.
double knownShare(const std::string& file) {
  const Trace t = importChromeTrace(test::dataDir("training-h200") / file);
  const auto w = workOf(t);
  double known = 0, all = 0;
  for (const GpuOpWork& x : w) {
    if (t.tracks[x.op.track].category[x.op.index] != Category::Kernel) continue;
    const double dur = double(t.tracks[x.op.track].dur_ns[x.op.index]);
    all += dur;
    if (x.work) known += dur;
  }
  EXPECT_GT(all, 0) << file;
  return all > 0 ? known / all : 0;
}

TEST(KernelWorkTrainingFixtures, NearlyAllKernelTimeHasAWorkModel) {
  EXPECT_GE(knownShare("training_step.json.gz"), 0.95);
  EXPECT_GE(knownShare("sdpa_backends.json.gz"), 0.95);
  EXPECT_GE(knownShare("compiled_block.json.gz"), 0.95);
  EXPECT_GE(knownShare("graph_replay.json.gz"), 0.95);
}

}  // namespace
}  // namespace fuselab
