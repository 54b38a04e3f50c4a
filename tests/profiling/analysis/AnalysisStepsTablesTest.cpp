// Per-step figures and the kernel / CPU op tables on hand-built traces.
#include <gtest/gtest.h>

#include <algorithm>

#include "profiling/analysis/single/Analysis.h"
#include "tests/support/SyntheticTrace.h"

namespace fuselab {
namespace {

using test::SyntheticTrace;

TEST(AnalysisSteps, ProfilerStepIndexParsesOnlyStepNames) {
  EXPECT_EQ(profilerStepIndex("ProfilerStep#12"), 12);
  EXPECT_EQ(profilerStepIndex("ProfilerStep#0"), 0);
  EXPECT_FALSE(profilerStepIndex("ProfilerStep#"));
  EXPECT_FALSE(profilerStepIndex("ProfilerStep#3a"));
  EXPECT_FALSE(profilerStepIndex("step3"));
}

TEST(AnalysisSteps, FiguresPerStep) {
  Trace t = SyntheticTrace()
                .step(2, 0, 10'000)
                .cpu("aten::mm", 100, 2'000)
                .launch(1, 500, 100)
                .gpu("k1", 1'000, 2'000, 1)
                .cpu("aten::add", 3'000, 1'000)
                .launch(2, 3'200, 100)
                .gpu("k2", 3'500, 500, 2)
                .launch(3, 5'000, 100, "cudaMemcpyAsync")
                .gpu("Memcpy HtoD (Pinned -> Device)", 5'200, 100, 3, 7, Category::Memcpy)
                .step(3, 10'000, 5'000)
                .cpu("aten::mm", 10'050, 250)
                .launch(4, 10'100, 100)
                .gpu("k1", 14'000, 2'000, 4)  // runs past the step: still step 3's
                .launch(99, 10'400, 10)         // enqueued nothing
                .build();
  std::vector<StepStats> steps = computeSteps(t);
  ASSERT_EQ(steps.size(), 2u);
  const StepStats& a = steps[0];
  EXPECT_EQ(a.index, 2);
  EXPECT_EQ(a.name, "ProfilerStep#2");
  EXPECT_EQ(a.start_ns, 0);
  EXPECT_EQ(a.end_ns, 10'000);
  EXPECT_EQ(a.wall_ns, 10'000);
  EXPECT_EQ(a.kernels, 2u);
  EXPECT_EQ(a.gpu_ops, 3u);
  EXPECT_EQ(a.launches, 3u);
  EXPECT_EQ(a.gpu_busy_ns, 2'000 + 500 + 100);
  EXPECT_EQ(a.cpu_dispatch_ns, 2'000 + 1'000);
  EXPECT_EQ(a.first_gpu_op_offset_ns, 1'000);
  EXPECT_EQ(t.name(a.annotation), "ProfilerStep#2");

  const StepStats& b = steps[1];
  EXPECT_EQ(b.index, 3);
  EXPECT_EQ(b.kernels, 1u);
  EXPECT_EQ(b.launches, 1u);
  EXPECT_EQ(b.gpu_busy_ns, 2'000);
  EXPECT_EQ(b.cpu_dispatch_ns, 250);
  EXPECT_EQ(b.wall_ns, 5'000);
  EXPECT_EQ(b.first_gpu_op_offset_ns, 4'000);
}

TEST(AnalysisSteps, NoStepsNoFigures) {
  Trace t = SyntheticTrace().launched("k", 0, 10, 20, 10, 1).build();
  EXPECT_TRUE(computeSteps(t).empty());
  EXPECT_FALSE(findAnalysisScope(t).from_steps);
}

// Two nn.Linear forwards: aten::linear -> aten::t (a view, launches nothing)
// and aten::addmm -> cudaLaunchKernel -> gemm.
Trace twoLinears() {
  return SyntheticTrace()
      .cpu("aten::linear", 0, 1'000)
      .cpu("aten::t", 10, 50)
      .cpu("aten::transpose", 20, 10)
      .cpu("aten::addmm", 100, 800)
      .launch(1, 200, 100)
      .gpu("gemm", 400, 300, 1)
      .cpu("aten::linear", 2'000, 500)
      .cpu("aten::t", 2'010, 30)
      .cpu("aten::addmm", 2'100, 300)
      .launch(2, 2'200, 50)
      .gpu("gemm", 2'300, 500, 2)
      .build();
}

const CpuOpRow& row(const std::vector<CpuOpRow>& rows, const std::string& name) {
  auto it = std::find_if(rows.begin(), rows.end(), [&](const CpuOpRow& r) { return r.name == name; });
  if (it == rows.end()) throw std::runtime_error("no row " + name);
  return *it;
}

TEST(AnalysisTables, CpuOpTableSelfTotalAndLaunchedGpuTime) {
  Trace t = twoLinears();
  auto rows = cpuOpTable(t);
  ASSERT_EQ(rows.size(), 5u);  // linear, t, transpose, addmm, cudaLaunchKernel

  const CpuOpRow& linear = row(rows, "aten::linear");
  EXPECT_EQ(linear.calls, 2u);
  EXPECT_EQ(linear.total_ns, 1'500);
  EXPECT_EQ(linear.self_ns, (1'000 - 50 - 800) + (500 - 30 - 300));
  EXPECT_EQ(linear.gpu_ns, 800);
  EXPECT_EQ(linear.gpu_ops, 2u);

  const CpuOpRow& tr = row(rows, "aten::t");
  EXPECT_EQ(tr.calls, 2u);
  EXPECT_EQ(tr.total_ns, 80);
  EXPECT_EQ(tr.self_ns, 40 + 30);
  EXPECT_EQ(tr.gpu_ns, 0);
  EXPECT_EQ(tr.gpu_ops, 0u);

  const CpuOpRow& addmm = row(rows, "aten::addmm");
  EXPECT_EQ(addmm.total_ns, 1'100);
  EXPECT_EQ(addmm.self_ns, 700 + 250);
  EXPECT_EQ(addmm.gpu_ns, 800);

  const CpuOpRow& launch = row(rows, "cudaLaunchKernel");
  EXPECT_EQ(launch.category, Category::CudaRuntime);
  EXPECT_EQ(launch.calls, 2u);
  EXPECT_EQ(launch.self_ns, 150);
  EXPECT_EQ(launch.gpu_ns, 800);

  EXPECT_EQ(rows.front().name, "aten::linear");  // largest total first
}

TEST(AnalysisTables, KernelTableCountTotalMeanMinMax) {
  Trace t = SyntheticTrace()
                .gpu("gemm", 0, 300, -1)
                .gpu("gemm", 1'000, 500, -1)
                .gpu("gemm", 2'000, 400, -1)
                .gpu("gelu", 3'000, 50, -1)
                .gpu("Memset (Device)", 4'000, 2, -1, 7, Category::Memset)
                .build();
  auto rows = kernelTable(t, findAnalysisScope(t));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].name, "gemm");
  EXPECT_EQ(rows[0].category, Category::Kernel);
  EXPECT_EQ(rows[0].count, 3u);
  EXPECT_EQ(rows[0].total_ns, 1'200);
  EXPECT_DOUBLE_EQ(rows[0].mean_ns, 400.0);
  EXPECT_EQ(rows[0].min_ns, 300);
  EXPECT_EQ(rows[0].max_ns, 500);
  EXPECT_EQ(rows[1].name, "gelu");
  EXPECT_EQ(rows[2].category, Category::Memset);
}

}  // namespace
}  // namespace fuselab
