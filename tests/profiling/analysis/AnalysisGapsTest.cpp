// Idle gaps, their causes (HTA's host wait / kernel wait / other), sync
// coverage, the scope they are taken over, and launch delays.
#include <gtest/gtest.h>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/common/Intervals.h"
#include "tests/support/SyntheticTrace.h"

namespace fuselab {
namespace {

using test::SyntheticTrace;

std::vector<GpuGap> gapsOf(const Trace& t, int64_t threshold_ns = 30'000) {
  AnalysisOptions o;
  o.gap_threshold_ns = threshold_ns;
  return findGpuGaps(t, findAnalysisScope(t), o);
}

TEST(AnalysisGaps, HostWaitWhenNextLaunchStartsAfterPreviousOpEnds) {
  Trace t = SyntheticTrace()
                .launched("k1", 0, 500, 1'000, 1'000, 1)        // GPU 1000..2000
                .launched("k2", 2'500, 500, 3'200, 1'000, 2)    // launched at 2500 > 2000
                .build();
  auto gaps = gapsOf(t);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].cause, GapCause::HostWait);
  EXPECT_EQ(gaps[0].start_ns, 2'000);
  EXPECT_EQ(gaps[0].end_ns, 3'200);
  EXPECT_EQ(gaps[0].durationNs(), 1'200);
  EXPECT_EQ(gaps[0].stream, 7);
  EXPECT_EQ(gaps[0].device, 0);
  EXPECT_EQ(t.name(gaps[0].prev_op), "k1");
  EXPECT_EQ(t.name(gaps[0].next_op), "k2");
  EXPECT_FALSE(gaps[0].covered_by_sync);
  EXPECT_EQ(gapCauseName(gaps[0].cause), "host_wait");
}

TEST(AnalysisGaps, KernelWaitWhenLaunchedEarlyAndGapBelowThreshold) {
  Trace t = SyntheticTrace()
                .launched("k1", 0, 500, 1'000, 1'000, 1)
                .launched("k2", 600, 500, 2'010, 1'000, 2)  // launched while k1 ran
                .build();
  auto gaps = gapsOf(t);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].cause, GapCause::KernelWait);
  EXPECT_EQ(gaps[0].durationNs(), 10);
}

TEST(AnalysisGaps, OtherWhenLaunchedEarlyAndGapAboveThresholdAndThresholdIsSettable) {
  Trace t = SyntheticTrace()
                .launched("k1", 0, 500, 1'000, 1'000, 1)
                .launched("k2", 600, 500, 52'000, 1'000, 2)  // 50 us gap, launched long before
                .build();
  auto gaps = gapsOf(t);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].cause, GapCause::Other);
  EXPECT_EQ(gaps[0].durationNs(), 50'000);

  EXPECT_EQ(gapsOf(t, 50'001)[0].cause, GapCause::KernelWait);
  EXPECT_EQ(gapsOf(t, 50'000)[0].cause, GapCause::Other);  // strictly below the threshold
}

TEST(AnalysisGaps, NoLaunchCapturedIsNeverHostWait) {
  Trace t = SyntheticTrace().gpu("k1", 1'000, 1'000, -1).gpu("k2", 100'000, 1'000, -1).build();
  auto gaps = gapsOf(t);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].cause, GapCause::Other);
}

TEST(AnalysisGaps, CoveredBySynchronizeCall) {
  Trace t = SyntheticTrace()
                .launched("k1", 0, 500, 1'000, 1'000, 1)
                .cpu("cudaDeviceSynchronize", 1'500, 1'100, Category::CudaRuntime)  // 1500..2600
                .launched("k2", 2'700, 300, 3'000, 1'000, 2)
                .build();
  auto gaps = gapsOf(t);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_TRUE(gaps[0].covered_by_sync);
  EXPECT_EQ(gaps[0].sync_overlap_ns, 600);  // gap 2000..3000, sync until 2600
  ASSERT_TRUE(gaps[0].sync_call.has_value());
  EXPECT_EQ(t.name(*gaps[0].sync_call), "cudaDeviceSynchronize");
  EXPECT_EQ(gaps[0].cause, GapCause::HostWait);
  IdleBreakdown idle = summarizeIdle(gaps);
  EXPECT_EQ(idle.sync_covered_ns, 600);
  EXPECT_EQ(idle.host_wait_ns, 1'000);
}

TEST(AnalysisGaps, NonSynchronizingCallDoesNotCover) {
  Trace t = SyntheticTrace()
                .launched("k1", 0, 500, 1'000, 1'000, 1)
                .cpu("cudaMemGetInfo", 1'500, 1'100, Category::CudaRuntime)
                .launched("k2", 2'700, 300, 3'000, 1'000, 2)
                .build();
  auto gaps = gapsOf(t);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_FALSE(gaps[0].covered_by_sync);
  EXPECT_EQ(gaps[0].sync_overlap_ns, 0);
}

TEST(AnalysisGaps, OverlappingOpsOnOneStreamLeaveNoGapAndStreamsAreSeparate) {
  Trace t = SyntheticTrace()
                .gpu("long", 0, 10'000, -1)
                .gpu("inside", 2'000, 1'000, -1)   // overlaps "long": no gap
                .gpu("after", 12'000, 1'000, -1)   // gap 10000..12000 after "long"
                .gpu("other_stream", 50'000, 1'000, -1, 13)
                .build();
  auto gaps = gapsOf(t);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].start_ns, 10'000);
  EXPECT_EQ(gaps[0].end_ns, 12'000);
  EXPECT_EQ(t.name(gaps[0].prev_op), "long");
}

TEST(AnalysisGaps, ScopeIsTheStepsWhenPresent) {
  Trace t = SyntheticTrace()
                .launched("before", 0, 100, 200, 100, 1)           // launched before any step
                .step(1, 1'000, 10'000)
                .launched("a", 1'100, 100, 2'000, 1'000, 2)
                .launched("b", 1'300, 100, 3'010, 1'000, 3)        // kernel wait 10 ns
                .launched("c", 5'000, 100, 6'000, 1'000, 4)        // host wait 4010..6000
                .launched("late", 50'000, 100, 50'200, 100, 5)     // after the steps
                .build();
  AnalysisScope scope = findAnalysisScope(t);
  EXPECT_TRUE(scope.from_steps);
  EXPECT_EQ(scope.gpu_ops.size(), 3u);
  EXPECT_EQ(scope.start_ns, 1'000);
  EXPECT_EQ(scope.end_ns, 11'000);
  auto gaps = gapsOf(t);
  ASSERT_EQ(gaps.size(), 2u);
  EXPECT_EQ(gaps[0].cause, GapCause::KernelWait);
  EXPECT_EQ(gaps[1].cause, GapCause::HostWait);
  IdleBreakdown idle = summarizeIdle(gaps);
  EXPECT_EQ(idle.kernel_wait_ns, 10);
  EXPECT_EQ(idle.host_wait_ns, 1'990);
  EXPECT_EQ(idle.other_ns, 0);
  EXPECT_EQ(idle.gap_count, 2u);
  EXPECT_DOUBLE_EQ(idle.hostWaitShare(), 1'990.0 / 2'000.0);
}

TEST(AnalysisGaps, ScopeExtendsToGpuWorkFinishingAfterTheLastStep) {
  Trace t = SyntheticTrace().step(1, 0, 1'000).launched("k", 100, 100, 900, 5'000, 1).build();
  AnalysisScope scope = findAnalysisScope(t);
  EXPECT_EQ(scope.start_ns, 0);
  EXPECT_EQ(scope.end_ns, 5'900);
}

TEST(AnalysisGaps, PerStreamBreakdown) {
  Trace t = SyntheticTrace()
                .launched("a1", 0, 100, 1'000, 100, 1, 7)
                .launched("a2", 5'000, 100, 6'000, 100, 2, 7)   // host wait 4900 on stream 7
                .launched("b1", 200, 100, 1'000, 100, 3, 13)
                .launched("b2", 300, 100, 1'150, 100, 4, 13)    // kernel wait 50 on stream 13
                .build();
  auto per_stream = summarizeIdlePerStream(t, gapsOf(t));
  ASSERT_EQ(per_stream.size(), 2u);
  for (const StreamIdle& s : per_stream) {
    if (s.stream == 7) {
      EXPECT_EQ(s.idle.host_wait_ns, 4'900);
      EXPECT_EQ(s.idle.kernel_wait_ns, 0);
    } else {
      EXPECT_EQ(s.stream, 13);
      EXPECT_EQ(s.idle.kernel_wait_ns, 50);
      EXPECT_EQ(s.idle.host_wait_ns, 0);
    }
  }
}

TEST(AnalysisLaunchDelay, GpuStartMinusLaunchEndNeverNegative) {
  Trace t = SyntheticTrace()
                .launched("k1", 100, 100, 450, 10, 1)  // launch ends 200, starts 450
                .launched("k2", 1'000, 500, 1'200, 10, 2)  // starts before the call returned
                .gpu("orphan", 5'000, 10, -1)
                .build();
  auto delays = computeLaunchDelays(t);
  ASSERT_EQ(delays.size(), 2u);
  EXPECT_EQ(t.name(delays[0].gpu_op), "k1");
  EXPECT_EQ(delays[0].delay_ns, 250);
  EXPECT_EQ(t.name(delays[0].launch), "cudaLaunchKernel");
  EXPECT_EQ(delays[1].delay_ns, 0);
  LaunchDelaySummary s = summarizeLaunchDelays(delays);
  EXPECT_EQ(s.count, 2u);
  EXPECT_EQ(s.total_ns, 250);
  EXPECT_EQ(s.max_ns, 250);
  EXPECT_DOUBLE_EQ(s.mean_ns, 125.0);
}

TEST(AnalysisUtilization, UnionOfOverlappingStreamsOverStepSpan) {
  Trace t = SyntheticTrace()
                .step(1, 0, 600)
                .gpu("a", 0, 100, -1, 7)
                .gpu("b", 200, 100, -1, 7)
                .gpu("c", 50, 200, -1, 13)  // bridges a and b: union 0..300
                .build();
  Utilization u = computeUtilization(t, findAnalysisScope(t));
  EXPECT_EQ(u.busy_ns, 300);
  EXPECT_EQ(u.span_ns, 600);
  EXPECT_DOUBLE_EQ(u.fraction, 0.5);
}

TEST(AnalysisUtilization, UnionLength) {
  EXPECT_EQ(unionLengthNs({}), 0);
  EXPECT_EQ(unionLengthNs({{5, 10}, {0, 3}, {2, 4}, {10, 12}, {20, 20}}), 4 + 7);
}

}  // namespace
}  // namespace fuselab
