// The verdict both ways and each diagnostic, on hand-built traces.
#include <gtest/gtest.h>

#include <algorithm>

#include "profiling/analysis/single/Analysis.h"
#include "tests/support/SyntheticTrace.h"

namespace fuselab {
namespace {

using test::SyntheticTrace;

// `n` 2 us kernels, each launched 20 us after the previous one finished.
Trace overheadBound(int n) {
  SyntheticTrace b;
  b.step(1, 0, int64_t(n) * 30'000);
  for (int i = 0; i < n; ++i) {
    int64_t launch = int64_t(i) * 30'000 + 1'000;
    b.launched("small", launch, 4'000, launch + 7'000, 2'000, i + 1);
  }
  return b.build();
}

// `n` 100 us kernels, all launched up front, back to back on the GPU.
Trace computeBound(int n) {
  SyntheticTrace b;
  b.step(1, 0, 10'000 + int64_t(n) * 100'000);
  for (int i = 0; i < n; ++i)
    b.launched("big", 100 + i * 5'000, 4'000, 10'000 + int64_t(i) * 100'500, 100'000, i + 1);
  return b.build();
}

TEST(AnalysisVerdict, OverheadBound) {
  TraceAnalysis a = analyzeTrace(overheadBound(10));
  EXPECT_EQ(a.verdict.kind, VerdictKind::OverheadBound);
  EXPECT_NEAR(a.verdict.utilization, 20'000.0 / 300'000.0, 1e-12);
  EXPECT_DOUBLE_EQ(a.verdict.host_wait_share, 1.0);
  EXPECT_NE(a.verdict.explanation.find("6.7%"), std::string::npos) << a.verdict.explanation;
  EXPECT_NE(a.verdict.explanation.find("overhead-bound"), std::string::npos);
  EXPECT_EQ(verdictName(a.verdict.kind), "overhead_bound");
}

TEST(AnalysisVerdict, ComputeBound) {
  TraceAnalysis a = analyzeTrace(computeBound(10));
  EXPECT_EQ(a.verdict.kind, VerdictKind::ComputeBound);
  EXPECT_GT(a.verdict.utilization, Verdict::kHighUtilization);
  EXPECT_EQ(a.idle.kernel_wait_ns, 9 * 500);  // launched early, 500 ns apart
  EXPECT_EQ(a.idle.host_wait_ns, 0);
  EXPECT_NE(a.verdict.explanation.find("compute-bound"), std::string::npos);
}

TEST(AnalysisVerdict, MixedAndNoGpuWork) {
  Utilization half{500, 1'000, 0.5};
  IdleBreakdown idle;
  idle.host_wait_ns = 100;
  idle.other_ns = 400;
  EXPECT_EQ(decideVerdict(half, idle, 3).kind, VerdictKind::Mixed);
  Utilization low{100, 1'000, 0.1};
  EXPECT_EQ(decideVerdict(low, idle, 3).kind, VerdictKind::Mixed);  // idle is mostly not host wait
  idle.host_wait_ns = 400;
  idle.other_ns = 100;
  EXPECT_EQ(decideVerdict(low, idle, 3).kind, VerdictKind::OverheadBound);
  EXPECT_EQ(decideVerdict(low, idle, 0).kind, VerdictKind::NoGpuWork);
  EXPECT_EQ(analyzeTrace(SyntheticTrace().cpu("aten::t", 0, 10).build()).verdict.kind, VerdictKind::NoGpuWork);
}

TEST(AnalysisVerdict, ThresholdIsClampedToTheAllowedRange) {
  AnalysisOptions o;
  o.gap_threshold_ns = -5;
  EXPECT_EQ(analyzeTrace(overheadBound(2), o).options.gap_threshold_ns, AnalysisOptions::kMinGapThresholdNs);
  o.gap_threshold_ns = AnalysisOptions::kMaxGapThresholdNs * 10;
  EXPECT_EQ(analyzeTrace(overheadBound(2), o).options.gap_threshold_ns, AnalysisOptions::kMaxGapThresholdNs);
}

const Diagnostic* find(const std::vector<Diagnostic>& ds, DiagnosticKind k) {
  auto it = std::find_if(ds.begin(), ds.end(), [&](const Diagnostic& d) { return d.kind == k; });
  return it == ds.end() ? nullptr : &*it;
}

// Three steps; the first GPU op of each starts `windows[k]` after its step.
Trace threeSteps(const int64_t walls[3], const int64_t windows[3]) {
  SyntheticTrace b;
  int64_t start = 0;
  for (int k = 0; k < 3; ++k) {
    b.step(k + 2, start, walls[k]);
    b.launched("k", start + 100, 100, start + windows[k], 1'000, k + 1);
    start += walls[k] + 1'000;
  }
  return b.build();
}

TEST(AnalysisDiagnostics, ColdStartByLongFirstStep) {
  const int64_t walls[3] = {200'000, 50'000, 55'000}, windows[3] = {5'000, 5'000, 5'000};
  Trace t = threeSteps(walls, windows);
  auto ds = findDiagnostics(t, computeSteps(t));
  const Diagnostic* d = find(ds, DiagnosticKind::ColdStart);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("ProfilerStep#2"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("200.0 us"), std::string::npos) << d->message;
  ASSERT_EQ(d->evidence.size(), 1u);
  EXPECT_EQ(t.name(d->evidence[0]), "ProfilerStep#2");
}

TEST(AnalysisDiagnostics, ColdStartByDeadWindowBeforeFirstOp) {
  const int64_t walls[3] = {300'000, 300'000, 300'000}, windows[3] = {228'000, 5'000, 5'500};
  Trace t = threeSteps(walls, windows);
  auto ds = findDiagnostics(t, computeSteps(t));
  const Diagnostic* d = find(ds, DiagnosticKind::ColdStart);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("228.0 us"), std::string::npos) << d->message;
}

TEST(AnalysisDiagnostics, NoColdStartWhenStepsAreAlike) {
  const int64_t walls[3] = {52'000, 50'000, 55'000}, windows[3] = {5'000, 4'500, 5'500};
  Trace t = threeSteps(walls, windows);
  auto ds = findDiagnostics(t, computeSteps(t));
  EXPECT_EQ(find(ds, DiagnosticKind::ColdStart), nullptr);
}

TEST(AnalysisDiagnostics, OccupancyQueryBeforeLaunch) {
  Trace t = SyntheticTrace()
                .cpu("aten::mm", 0, 1'000)
                .cpu("cudaOccupancyMaxActiveBlocksPerMultiprocessor", 100, 50, Category::CudaRuntime)
                .launched("gemm", 200, 100, 400, 300, 1)
                .cpu("aten::add", 2'000, 500)
                .launched("add_kernel", 2'100, 100, 2'300, 10, 2)
                .build();
  auto ds = findDiagnostics(t, computeSteps(t));
  const Diagnostic* d = find(ds, DiagnosticKind::OccupancyQuery);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("1 of 2 launches"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("aten::mm"), std::string::npos) << d->message;
  ASSERT_EQ(d->evidence.size(), 2u);
  EXPECT_EQ(t.name(d->evidence[0]), "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  EXPECT_EQ(t.name(d->evidence[1]), "cudaLaunchKernel");
}

TEST(AnalysisDiagnostics, NoOccupancyQueryDiagnosticWithoutQueries) {
  Trace t = SyntheticTrace().cpu("aten::add", 0, 500).launched("add_kernel", 100, 100, 300, 10, 1).build();
  auto ds = findDiagnostics(t, {});
  EXPECT_EQ(find(ds, DiagnosticKind::OccupancyQuery), nullptr);
}

TEST(AnalysisDiagnostics, DeviceToDeviceCopyTheUserDidNotWrite) {
  const Category memcpy = Category::Memcpy;
  Trace t = SyntheticTrace()
                .cpu("aten::addmm", 0, 1'000)
                .launch(1, 100, 50, "cudaMemcpyAsync")
                .gpu("Memcpy DtoD (Device -> Device)", 300, 20, 1, 7, memcpy)
                .cpu("aten::copy_", 2'000, 1'000)  // an explicit copy: not flagged
                .launch(2, 2'100, 50, "cudaMemcpyAsync")
                .gpu("Memcpy DtoD (Device -> Device)", 2'300, 20, 2, 7, memcpy)
                .cpu("aten::to", 4'000, 1'000)  // host->device copy: not device-to-device
                .launch(3, 4'100, 50, "cudaMemcpyAsync")
                .gpu("Memcpy HtoD (Pageable -> Device)", 4'300, 20, 3, 7, memcpy)
                .build();
  auto ds = findDiagnostics(t, {});
  const Diagnostic* d = find(ds, DiagnosticKind::UnrequestedDeviceCopy);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("1 device-to-device copy"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("aten::addmm"), std::string::npos) << d->message;
  ASSERT_EQ(d->evidence.size(), 2u);
  EXPECT_EQ(t.tracks[d->evidence[0].track].start_ns[d->evidence[0].index], 300);
  EXPECT_EQ(t.name(d->evidence[1]), "aten::addmm");
}

TEST(AnalysisDiagnostics, LongFinalSynchronize) {
  // A100 tutorial numbers: 1.78 ms of synchronize covering 26 us of GPU work.
  Trace t = SyntheticTrace()
                .launched("k", 0, 5'000, 10'000, 26'000, 1)
                .cpu("cudaDeviceSynchronize", 6'000, 1'780'000, Category::CudaRuntime)
                .build();
  auto ds = findDiagnostics(t, {});
  const Diagnostic* d = find(ds, DiagnosticKind::LongFinalSync);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("1.78 ms"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("26.0 us"), std::string::npos) << d->message;
  ASSERT_EQ(d->evidence.size(), 1u);
  EXPECT_EQ(t.name(d->evidence[0]), "cudaDeviceSynchronize");
}

TEST(AnalysisDiagnostics, FinalSynchronizeThatWaitsForRealWorkIsFine) {
  Trace t = SyntheticTrace()
                .launched("k", 0, 5'000, 10'000, 1'000'000, 1)
                .cpu("cudaStreamSynchronize", 6'000, 1'010'000, Category::CudaRuntime)
                .build();
  auto ds = findDiagnostics(t, {});
  EXPECT_EQ(find(ds, DiagnosticKind::LongFinalSync), nullptr);
}

}  // namespace
}  // namespace fuselab
