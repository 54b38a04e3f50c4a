// Work per GPU op: attribution to the innermost modelled CPU op, split-K
// sharing, unknown ops, and the real torch.profiler fixtures.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/work/KernelWork.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/SyntheticTrace.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

using test::SyntheticTrace;

const std::string kMmArgs =
    R"({"Input Dims": [[64, 3072], [3072, 768]], "Input type": ["c10::BFloat16", "c10::BFloat16"]})";
constexpr double kMmFlops = 2.0 * 64 * 3072 * 768;
constexpr double kMmBytes = (64.0 * 3072 + 3072.0 * 768 + 64.0 * 768) * 2;

std::vector<GpuOpWork> workOf(const Trace& t) { return attributeWork(t, findAnalysisScope(t).gpu_ops); }

const GpuOpWork& byName(const Trace& t, const std::vector<GpuOpWork>& w, std::string_view name) {
  for (const GpuOpWork& x : w)
    if (t.name(x.op) == name) return x;
  throw std::runtime_error("no GPU op " + std::string(name));
}

TEST(KernelWork, SplitKSharesTheGemmsWorkByDuration) {
  // aten::linear -> aten::matmul -> aten::mm launching a GEMM (30 us) and its splitKreduce (10 us).
  Trace t = SyntheticTrace()
                .op("aten::linear", 0, 100'000, R"({"Input Dims": [[64, 3072], [768, 3072], []],
                    "Input type": ["c10::BFloat16", "c10::BFloat16", ""]})")
                .op("aten::matmul", 1'000, 90'000, "{}")
                .op("aten::mm", 2'000, 80'000, kMmArgs)
                .launch(1, 10'000, 5'000, "cuLaunchKernelEx")
                .launch(2, 20'000, 5'000)
                .gpu("nvjet_sm90_tst_gemm", 30'000, 30'000, 1)
                .gpu("splitKreduce_kernel", 60'000, 10'000, 2)
                .build();
  const auto w = workOf(t);
  const GpuOpWork& gemm = byName(t, w, "nvjet_sm90_tst_gemm");
  const GpuOpWork& reduce = byName(t, w, "splitKreduce_kernel");
  ASSERT_TRUE(gemm.work) << gemm.note;
  ASSERT_TRUE(reduce.work) << reduce.note;
  EXPECT_EQ(t.name(*gemm.source), "aten::mm");  // innermost with a model, not linear
  EXPECT_EQ(gemm.op_kernels, 2u);
  EXPECT_DOUBLE_EQ(gemm.share, 0.75);
  EXPECT_DOUBLE_EQ(reduce.share, 0.25);
  EXPECT_DOUBLE_EQ(gemm.work->flops, 0.75 * kMmFlops);
  EXPECT_DOUBLE_EQ(reduce.work->flops, 0.25 * kMmFlops);
  EXPECT_DOUBLE_EQ(gemm.work->bytes + reduce.work->bytes, kMmBytes);
  EXPECT_NE(gemm.note.find("split over its 2 kernels"), std::string::npos) << gemm.note;
}

// Launches on two CPU threads, with GPU ops listed in another order than
// their launches: each kernel takes the work of the op on its own thread.
TEST(KernelWork, EachThreadsLaunchesTakeTheirOwnThreadsOp) {
  Trace t;
  const uint32_t thread_a = t.trackFor("100", "100"), thread_b = t.trackFor("100", "200");
  const uint32_t stream_7 = t.trackFor("0", "7"), stream_8 = t.trackFor("0", "8");
  for (auto [track, start] : {std::pair{thread_a, 0}, {thread_b, 0}, {thread_a, 20'000}}) {
    Trace::NewEvent mm = test::newEvent(t, "aten::mm", start, 10'000);
    mm.args = t.addArgs(kMmArgs);
    t.append(track, mm);
  }
  test::addEvent(t, thread_a, "cudaLaunchKernel", 1'000, 500, Category::CudaRuntime, 1);
  test::addEvent(t, thread_b, "cudaLaunchKernel", 2'000, 500, Category::CudaRuntime, 2);
  test::addEvent(t, thread_a, "cudaLaunchKernel", 21'000, 500, Category::CudaRuntime, 3);
  test::addEvent(t, stream_7, "gemm_b", 5'000, 1'000, Category::Kernel, 2);
  test::addEvent(t, stream_7, "gemm_a2", 30'000, 1'000, Category::Kernel, 3);
  test::addEvent(t, stream_8, "gemm_a", 6'000, 1'000, Category::Kernel, 1);
  t.finalize();
  const auto w = workOf(t);
  for (auto [kernel, thread, start] :
       {std::tuple{"gemm_a", "100", 0}, {"gemm_b", "200", 0}, {"gemm_a2", "100", 20'000}}) {
    const GpuOpWork& x = byName(t, w, kernel);
    ASSERT_TRUE(x.work && x.source) << kernel << ": " << x.note;
    EXPECT_EQ(t.strings.get(t.tracks[x.source->track].tid_id), thread) << kernel;
    EXPECT_EQ(t.tracks[x.source->track].start_ns[x.source->index], start) << kernel;
    EXPECT_EQ(x.op_kernels, 1u) << kernel;
    EXPECT_DOUBLE_EQ(x.work->flops, kMmFlops) << kernel;
  }
}

// fuselab's large MLP path replays its two kernels from a graph inside one
// fuselab::fused_mlp op: that op's work covers exactly them, split by duration.
TEST(KernelWork, AFuselabOpAroundAGraphReplayGivesItsKernelsTheWork) {
  const std::string args = R"({"Input Dims": [[512, 768], [6144, 768], [768, 3072]],
      "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"]})";
  Trace t = SyntheticTrace()
                .op("fuselab::fused_mlp", 0, 10'000, args)
                .launch(7, 1'000, 2'000, "cudaGraphLaunch")
                .gpu("gegluGemmWgmmaKernel", 5'000, 12'000, 7)
                .gpu("nvjet_sm90_down", 17'000, 6'000, 7)
                .build();
  const auto w = workOf(t);
  const GpuOpWork& geglu = byName(t, w, "gegluGemmWgmmaKernel");
  const GpuOpWork& down = byName(t, w, "nvjet_sm90_down");
  ASSERT_TRUE(geglu.work) << geglu.note;
  ASSERT_TRUE(down.work) << down.note;
  // Each kernel its own part (not the op's work split by duration, 12:6):
  // gate/up GEMM + GeGLU writing act [512, 3072], and the down GEMM reading it.
  const double m = 512, d = 768, h = 3072;
  EXPECT_DOUBLE_EQ(geglu.work->flops, 2 * m * d * 2 * h + 2 * m * h);
  EXPECT_DOUBLE_EQ(geglu.work->bytes, 2 * (m * d + 2 * h * d + m * h));
  EXPECT_DOUBLE_EQ(down.work->flops, 2 * m * h * d);
  EXPECT_DOUBLE_EQ(down.work->bytes, 2 * (m * h + d * h + m * d));
  EXPECT_EQ(geglu.op_kernels, 2u);
  EXPECT_NE(down.note.find("the rest"), std::string::npos) << down.note;
}

// The same op on its small-token path: one kernel for all of it takes the
// op's whole work (its parts do not fit one kernel).
TEST(KernelWork, AFusedMlpOfOneKernelTakesTheWholeOp) {
  const std::string args = R"({"Input Dims": [[64, 768], [6144, 768], [768, 3072]],
      "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"]})";
  Trace t = SyntheticTrace()
                .op("fuselab::fused_mlp", 0, 10'000, args)
                .launch(7, 1'000, 2'000, "cudaLaunchKernelExC")
                .gpu("onePassWgmmaKernel", 5'000, 10'000, 7)
                .build();
  const auto w = workOf(t);
  const GpuOpWork& k = byName(t, w, "onePassWgmmaKernel");
  ASSERT_TRUE(k.work) << k.note;
  EXPECT_DOUBLE_EQ(k.work->flops, 2.0 * 64 * 768 * 6144 + 2.0 * 64 * 3072 + 2.0 * 64 * 3072 * 768);
  EXPECT_DOUBLE_EQ(k.share, 1.0);
}

TEST(KernelWork, UnknownOpsAreMarkedUnknownWithTheReason) {
  Trace t = SyntheticTrace()
                .op("aten::cumsum", 0, 10'000, R"({"Input Dims": [[10]], "Input type": ["float"]})")
                .launch(1, 1'000, 1'000)
                .gpu("cumsum_kernel", 3'000, 1'000, 1)
                .op("aten::mm", 20'000, 10'000, R"({"Input Dims": [[2, 3], [3, 4]]})")  // no types
                .launch(2, 21'000, 1'000)
                .gpu("gemm", 23'000, 1'000, 2)
                .gpu("orphan_kernel", 40'000, 1'000, 99)  // its launch was not captured
                .launch(3, 50'000, 1'000)                 // outside any op
                .gpu("bare_kernel", 52'000, 1'000, 3)
                .op("aten::mm", 60'000, 10'000, kMmArgs)  // a graph replayed inside an op says nothing of its shapes
                .launch(4, 61'000, 1'000, "cudaGraphLaunch")
                .gpu("graph_kernel", 63'000, 1'000, 4)
                .build();
  const auto w = workOf(t);
  auto expectUnknown = [&](std::string_view name, std::string_view why) {
    const GpuOpWork& x = byName(t, w, name);
    EXPECT_FALSE(x.work) << name;
    EXPECT_NE(x.note.find(why), std::string::npos) << name << ": " << x.note;
  };
  expectUnknown("cumsum_kernel", "no work model for aten::cumsum");
  expectUnknown("gemm", "without input types");
  expectUnknown("orphan_kernel", "launch call not captured");
  expectUnknown("bare_kernel", "outside any CPU op");
  expectUnknown("graph_kernel", "CUDA graph");
}

TEST(KernelWork, AnOuterModelledOpDoesNotCountWorkANestedOneCounts) {
  // aten::linear launches a kernel of its own and holds aten::mm, which launches the GEMM.
  Trace t = SyntheticTrace()
                .op("aten::linear", 0, 100'000, R"({"Input Dims": [[64, 3072], [768, 3072], []],
                    "Input type": ["c10::BFloat16", "c10::BFloat16", ""]})")
                .launch(1, 1'000, 1'000)
                .op("aten::mm", 10'000, 50'000, kMmArgs)
                .launch(2, 11'000, 1'000)
                .gpu("prologue_kernel", 3'000, 1'000, 1)
                .gpu("gemm", 13'000, 10'000, 2)
                .build();
  const auto w = workOf(t);
  EXPECT_FALSE(byName(t, w, "prologue_kernel").work);
  EXPECT_NE(byName(t, w, "prologue_kernel").note.find("nested op already counts"), std::string::npos);
  ASSERT_TRUE(byName(t, w, "gemm").work);
  EXPECT_DOUBLE_EQ(byName(t, w, "gemm").work->flops, kMmFlops);
}

TEST(KernelWork, CopiesCarryTheirOwnBytes) {
  Trace t = SyntheticTrace()
                .launch(1, 0, 1'000, "cudaMemcpyAsync")
                .gpuWithArgs("Memcpy DtoD (Device -> Device)", 2'000, 1'000, 1, Category::Memcpy, R"({"bytes": 1000})")
                .launch(2, 5'000, 1'000, "cudaMemcpyAsync")
                .gpuWithArgs("Memcpy HtoD (Pinned -> Device)", 7'000, 1'000, 2, Category::Memcpy, R"({"bytes": 500})")
                .launch(3, 9'000, 1'000, "cudaMemsetAsync")
                .gpuWithArgs("Memset (Device)", 11'000, 1'000, 3, Category::Memset, R"({"bytes": 64})")
                .build();
  const auto w = workOf(t);
  EXPECT_DOUBLE_EQ(byName(t, w, "Memcpy DtoD (Device -> Device)").work->bytes, 2000);  // read + write
  EXPECT_DOUBLE_EQ(byName(t, w, "Memcpy HtoD (Pinned -> Device)").work->bytes, 500);
  EXPECT_DOUBLE_EQ(byName(t, w, "Memset (Device)").work->bytes, 64);
}

// The fixtures' own shapes, computed here by hand.
TEST(KernelWorkFixtures, MlpEagerGemmsAndElementwise) {
  const Trace t = importChromeTrace(test::fixture("mlp_eager.json.gz"));
  const auto w = workOf(t);
  int up = 0, down = 0, gelu = 0, mul = 0;
  for (const GpuOpWork& x : w) {
    const std::string_view name = t.name(x.op);
    if (name.starts_with("nvjet_sm90_tst_256x128")) {  // gate and up: [8192, 768] x [768, 3072]
      ASSERT_TRUE(x.work) << x.note;
      EXPECT_EQ(t.name(*x.source), "aten::mm");
      EXPECT_DOUBLE_EQ(x.work->flops, 2.0 * 8192 * 768 * 3072);
      EXPECT_DOUBLE_EQ(x.work->bytes, (8192.0 * 768 + 768.0 * 3072 + 8192.0 * 3072) * 2);
      ++up;
    } else if (name.starts_with("nvjet_sm90_tst_192x128")) {  // down: [8192, 3072] x [3072, 768]
      ASSERT_TRUE(x.work) << x.note;
      EXPECT_DOUBLE_EQ(x.work->flops, 2.0 * 8192 * 3072 * 768);
      ++down;
    } else if (name.find("Gelu") != std::string_view::npos) {
      ASSERT_TRUE(x.work) << x.note;
      EXPECT_DOUBLE_EQ(x.work->flops, 64.0 * 128 * 3072);
      EXPECT_DOUBLE_EQ(x.work->bytes, 2 * 64.0 * 128 * 3072 * 2);
      ++gelu;
    } else if (name.find("BinaryFunctor") != std::string_view::npos) {
      ASSERT_TRUE(x.work) << x.note;
      EXPECT_DOUBLE_EQ(x.work->bytes, 3 * 64.0 * 128 * 3072 * 2);
      ++mul;
    } else if (name == "Memset (Device)") {
      ASSERT_TRUE(x.work) << x.note;
      EXPECT_DOUBLE_EQ(x.work->bytes, 4);
    }
  }
  EXPECT_EQ(up, 6);
  EXPECT_EQ(down, 3);
  EXPECT_EQ(gelu, 3);
  EXPECT_EQ(mul, 3);
}

TEST(KernelWorkFixtures, LinearEagerAddmmWithBias) {
  const Trace t = importChromeTrace(test::fixture("linear_eager.json.gz"));
  const auto w = workOf(t);
  ASSERT_EQ(w.size(), 3u);
  for (const GpuOpWork& x : w) {
    ASSERT_TRUE(x.work) << x.note;
    EXPECT_EQ(t.name(*x.source), "aten::addmm");
    EXPECT_DOUBLE_EQ(x.work->flops, 2.0 * 1024 * 32 * 64 + 1024.0 * 64);
    EXPECT_DOUBLE_EQ(x.work->bytes, (64.0 + 1024 * 32 + 32 * 64 + 1024 * 64) * 2);
  }
}

TEST(KernelWorkFixtures, WithoutRecordShapesKernelsAreUnknownCopiesKnown) {
  const Trace t = importChromeTrace(test::fixture("multistream_memcpy.json.gz"));
  const auto w = workOf(t);
  bool saw_kernel = false, saw_h2d = false;
  for (const GpuOpWork& x : w) {
    const Category c = t.tracks[x.op.track].category[x.op.index];
    if (c == Category::Kernel) {
      saw_kernel = true;
      EXPECT_FALSE(x.work) << t.name(x.op);
      EXPECT_FALSE(x.note.empty());
    }
    if (t.name(x.op) == "Memcpy HtoD (Pinned -> Device)") {
      saw_h2d = true;
      ASSERT_TRUE(x.work);
      EXPECT_DOUBLE_EQ(x.work->bytes, 67108864);
    }
  }
  EXPECT_TRUE(saw_kernel);
  EXPECT_TRUE(saw_h2d);
}

}  // namespace
}  // namespace fuselab
