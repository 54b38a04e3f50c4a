// The forwards a capture runs and the estimate the window and `capture`
// announce a long wait with (profiling/capture_api/CapturePlan.h).
#include <gtest/gtest.h>

#include "profiling/capture_api/CapturePlan.h"

namespace fuselab {
namespace {

TEST(CapturePlan, CountsEveryForwardOfTheCapture) {
  CaptureOptions o;  // 3 warm-up, 3 steps
  const CapturePlan plan = planCapture(o);
  EXPECT_EQ(plan.warmups, 3);
  EXPECT_EQ(plan.profiled_warmups, kProfiledWarmups);
  EXPECT_EQ(plan.steps, 3);
  EXPECT_EQ(plan.unprofiled_blocks_before, 1);  // one before the collectors, two after
  EXPECT_EQ(plan.unprofiled_blocks_after, 2);
  EXPECT_EQ(plan.forwards_per_block, 3);
  EXPECT_EQ(plan.totalForwards(), 3 + 6 + 3 + 9);

  o.warmup = 0;  // a cold start: no warm-ups, no block before the steps
  o.steps = 200;
  const CapturePlan cold = planCapture(o);
  EXPECT_EQ(cold.profiled_warmups, 0);
  EXPECT_EQ(cold.unprofiled_blocks_before, 0);
  EXPECT_EQ(cold.unprofiled_blocks_after, 2);
  EXPECT_EQ(cold.forwards_per_block, kMaxUnprofiledPerBlock);
}

TEST(CapturePlan, TheEstimateCountsProfiledForwardsAQuarterSlower) {
  const CapturePlan plan = planCapture(CaptureOptions{});
  // 12 unprofiled forwards (3 warm-up + 3 blocks of 3) and 9 profiled ones.
  EXPECT_DOUBLE_EQ(estimateCaptureSeconds(plan, 1.0), 12 + 1.25 * 9);
  EXPECT_DOUBLE_EQ(estimateCaptureSeconds(plan, 0.0), 0);
  // The MLP at the GPU's 8192 tokens on a 2-core CPU: about 6.5 s a forward.
  EXPECT_GT(estimateCaptureSeconds(plan, 6.5), kLongCaptureSeconds);
}

TEST(CapturePlan, ASmallerSizeHalvesTheTokensUntilItFits) {
  WorkloadParams p;
  p.batch = 64;
  p.seq = 128;
  const WorkloadParams smaller = smallerForCapture(p, 140, 2);
  EXPECT_EQ(smaller.batch, 1);   // batch first: 64 -> 1 is 1/64, 2.2 s
  EXPECT_EQ(smaller.seq, 64);    // then seq: 1.1 s
  EXPECT_EQ(sizeOptions(smaller), "--batch 1 --seq 64");
  const WorkloadParams same = smallerForCapture(p, 1.5, 2);
  EXPECT_EQ(same.batch, 64);
  EXPECT_EQ(same.seq, 128);
  p.batch = p.seq = 1;  // nothing left to halve
  EXPECT_EQ(smallerForCapture(p, 100, 2).batch, 1);
}

TEST(CapturePlan, SecondsForPeople) {
  EXPECT_EQ(aboutSeconds(119), "about 2 min");
  EXPECT_EQ(aboutSeconds(40.4), "about 40 s");
  EXPECT_EQ(aboutSeconds(1.46), "about 1.5 s");
}

}  // namespace
}  // namespace fuselab
