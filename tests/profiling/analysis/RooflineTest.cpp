// Speed of light and bound against a hand-made roof; ceilings for traces;
// the roofline inside analyzeTrace on the H100 fixture.
#include <gtest/gtest.h>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/work/Roofline.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/SyntheticTrace.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

// 100 TFLOP/s bf16, 1000 GB/s: ridge at 100 FLOP/byte.
Ceilings roof() {
  Ceilings c;
  c.source = "measured";
  c.gpu = "Test GPU";
  c.bf16_tflops = 100;
  c.copy_gbps = 1000;
  return c;
}

GpuOpWork known(double flops, double bytes, Precision p = Precision::BF16) {
  GpuOpWork w;
  w.work = Work{flops, bytes, p};
  return w;
}

TEST(Roofline, ComputeBoundKernelAtHalfThePeak) {
  // 1e9 FLOP over 1e6 bytes (1000 FLOP/byte): 10 us on the roof, ran 20 us.
  RooflineFigures f = rooflineOf(known(1e9, 1e6), 20'000, "gemm", false, roof());
  EXPECT_DOUBLE_EQ(f.intensity, 1000);
  EXPECT_DOUBLE_EQ(f.achieved_tflops, 50);
  EXPECT_DOUBLE_EQ(f.achieved_gbps, 50);
  ASSERT_TRUE(f.speed_of_light);
  EXPECT_DOUBLE_EQ(*f.speed_of_light, 0.5);
  EXPECT_EQ(f.bound, Bound::Compute);
}

TEST(Roofline, MemoryBoundKernel) {
  // 1e7 bytes at 1 FLOP/byte: 10 us on the roof, ran 12.5 us.
  RooflineFigures f = rooflineOf(known(1e7, 1e7), 12'500, "mul", false, roof());
  EXPECT_DOUBLE_EQ(*f.speed_of_light, 0.8);
  EXPECT_EQ(f.bound, Bound::Memory);
}

TEST(Roofline, ShortKernelFarFromTheRoofIsLatencyBound) {
  // 1e5 bytes: 0.1 us on the roof, ran 3 us (3%).
  RooflineFigures f = rooflineOf(known(1e5, 1e5), 3'000, "mul", false, roof());
  EXPECT_NEAR(*f.speed_of_light, 0.1 / 3, 1e-12);
  EXPECT_EQ(f.bound, Bound::Latency);
  // The same short kernel close to its roof is memory-bound, not latency.
  RooflineFigures near = rooflineOf(known(1e5, 1e5), 150, "mul", false, roof());
  EXPECT_EQ(near.bound, Bound::Memory);
}

TEST(Roofline, UnknownWorkAndMissingCeilings) {
  GpuOpWork unknown;
  RooflineFigures u = rooflineOf(unknown, 1'000, "k", false, roof());
  EXPECT_EQ(u.unknown, 1u);
  EXPECT_EQ(u.bound, Bound::Unknown);
  EXPECT_FALSE(u.speed_of_light);
  // fp16 work on a roof that only knows bf16: no speed of light, figures still there.
  RooflineFigures h = rooflineOf(known(1e9, 1e6, Precision::FP16), 20'000, "gemm", false, roof());
  EXPECT_FALSE(h.speed_of_light);
  EXPECT_EQ(h.bound, Bound::Unknown);
  EXPECT_DOUBLE_EQ(h.achieved_tflops, 50);
  RooflineFigures none = rooflineOf(known(1e9, 1e6), 20'000, "gemm", false, std::nullopt);
  EXPECT_FALSE(none.speed_of_light);
  RooflineFigures host = rooflineOf(known(0, 1e6), 1'000, "Memcpy HtoD", true, roof());
  EXPECT_EQ(host.bound, Bound::HostTransfer);
  EXPECT_FALSE(host.speed_of_light);
}

TEST(Roofline, GroupsSumWorkAndTime) {
  RooflineFigures total;
  accumulate(total, rooflineOf(known(1e9, 1e6), 20'000, "gemm", false, roof()));
  accumulate(total, rooflineOf(known(1e9, 1e6), 10'000, "gemm", false, roof()));
  accumulate(total, rooflineOf(GpuOpWork{}, 5'000, "gemm", false, roof()));
  finish(total, roof());
  EXPECT_EQ(total.known, 2u);
  EXPECT_EQ(total.unknown, 1u);
  EXPECT_DOUBLE_EQ(total.flops, 2e9);
  EXPECT_EQ(total.dur_ns, 30'000);
  EXPECT_DOUBLE_EQ(*total.speed_of_light, 20'000.0 / 30'000.0);
  EXPECT_EQ(total.bound, Bound::Compute);
}

TEST(Roofline, PublishedCeilingsByGpuName) {
  auto h100 = publishedCeilings("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(h100);
  EXPECT_EQ(h100->source, "published");
  EXPECT_DOUBLE_EQ(h100->bf16_tflops, 989.4);
  EXPECT_DOUBLE_EQ(h100->copy_gbps, 3350);
  EXPECT_DOUBLE_EQ(publishedCeilings("NVIDIA H100 PCIe")->copy_gbps, 2000);
  EXPECT_DOUBLE_EQ(publishedCeilings("NVIDIA L4")->copy_gbps, 300);
  EXPECT_DOUBLE_EQ(publishedCeilings("NVIDIA L40S")->copy_gbps, 864);
  EXPECT_DOUBLE_EQ(publishedCeilings("NVIDIA A100-SXM4-80GB")->bf16_tflops, 312);
  EXPECT_FALSE(publishedCeilings("NVIDIA A10G"));
  EXPECT_FALSE(publishedCeilings("Some Future GPU"));
}

TEST(Roofline, MeasuredCeilingsForTheTracesGpuWin) {
  const Trace t = importChromeTrace(test::fixture("mlp_eager.json.gz"));
  auto published = ceilingsForTrace(t, {});
  ASSERT_TRUE(published);
  EXPECT_EQ(published->source, "published");
  Ceilings mine = roof();
  mine.gpu = "NVIDIA H100 80GB HBM3";
  Ceilings other = roof();
  other.gpu = "NVIDIA L4";
  auto measured = ceilingsForTrace(t, {other, mine});
  ASSERT_TRUE(measured);
  EXPECT_EQ(measured->source, "measured");
  EXPECT_DOUBLE_EQ(measured->bf16_tflops, 100);
}

TEST(Roofline, AnalyzeTraceFillsKernelRowsAndSteps) {
  const Trace t = importChromeTrace(test::fixture("mlp_eager.json.gz"));
  const TraceAnalysis a = analyzeTrace(t);
  ASSERT_TRUE(a.roofline.ceilings);
  ASSERT_EQ(a.roofline.ops.size(), a.scope.gpu_ops.size());
  bool saw_gemm = false;
  for (const KernelRow& k : a.kernels) {
    if (!k.name.starts_with("nvjet_sm90_tst_256x128")) continue;
    saw_gemm = true;
    EXPECT_EQ(k.roofline.known, k.count);
    EXPECT_DOUBLE_EQ(k.roofline.flops, double(k.count) * 2.0 * 8192 * 768 * 3072);
    EXPECT_NEAR(k.roofline.achieved_tflops, k.roofline.flops / double(k.total_ns) / 1e3, 1e-9);
    ASSERT_TRUE(k.roofline.speed_of_light);
    EXPECT_GT(*k.roofline.speed_of_light, 0.3);  // a large GEMM on an H100
    EXPECT_LT(*k.roofline.speed_of_light, 1.0);
    EXPECT_EQ(k.roofline.bound, Bound::Compute);
  }
  EXPECT_TRUE(saw_gemm);
  ASSERT_FALSE(a.steps.empty());
  double step_flops = 0;
  for (const StepStats& s : a.steps) step_flops += s.roofline.flops;
  EXPECT_DOUBLE_EQ(step_flops, a.roofline.total.flops);
  EXPECT_GT(a.roofline.total.flops, 0);
}

TEST(Roofline, StepFiguresCountTheOpsLaunchedInEachStep) {
  // Launches at a step's first and last instant, and one whose kernel runs
  // in the next step's time: each op counts in the step of its launch call,
  // as in the step table; ops launched between steps count in none.
  const Trace t = test::SyntheticTrace()
                      .step(1, 0, 10'000)
                      .step(2, 20'000, 10'000)
                      .step(3, 40'000, 10'000)
                      .launched("k", 0, 100, 1'000, 500, 1)
                      .launched("k", 10'000, 100, 11'000, 500, 2)
                      .launched("k", 15'000, 100, 16'000, 500, 3)
                      .launched("k", 20'000, 100, 21'000, 500, 4)
                      .launched("k", 29'000, 100, 45'000, 500, 5)
                      .launched("k", 40'000, 100, 46'000, 500, 6)
                      .launched("k", 50'000, 100, 50'500, 500, 7)
                      .build();
  const TraceAnalysis a = analyzeTrace(t);
  ASSERT_EQ(a.steps.size(), 3u);
  for (const StepStats& s : a.steps) {
    EXPECT_EQ(s.roofline.known + s.roofline.unknown, 2u) << s.name;
    EXPECT_EQ(s.roofline.known + s.roofline.unknown, s.kernels) << s.name;
  }
  EXPECT_EQ(a.roofline.total.known + a.roofline.total.unknown, 6u);
}

}  // namespace
}  // namespace fuselab
