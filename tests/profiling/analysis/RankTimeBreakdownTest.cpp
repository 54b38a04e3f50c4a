// A rank's compute / non-compute / idle split (RankTimeBreakdown.h) leaves
// out GPU ops launched before recording began, as HTA's temporal breakdown
// does, and keeps every op where no launch is linked at all.
#include <gtest/gtest.h>

#include "profiling/analysis/run/RankTimeBreakdown.h"
#include "tests/support/SyntheticTrace.h"

namespace fuselab {
namespace {

void expectSplit(const RankTimeBreakdown& b, int64_t span, int64_t compute, int64_t non_compute, int64_t idle) {
  EXPECT_EQ(b.span_ns, span);
  EXPECT_EQ(b.compute_ns, compute);
  EXPECT_EQ(b.non_compute_ns, non_compute);
  EXPECT_EQ(b.idle_ns, idle);
}

// Compute 5-6 and 8-9 us, a copy 11-12 us, each launched: span 5-12 us.
void addRecordedOps(test::SyntheticTrace& t) {
  t.launched("gemm", 4'000, 500, 5'000, 1'000, 1)
      .launched("gemm", 7'000, 500, 8'000, 1'000, 2)
      .launch(3, 10'000, 500, "cudaMemcpyAsync")
      .gpu("Memcpy DtoD", 11'000, 1'000, 3, 7, Category::Memcpy);
}

TEST(RankTimeBreakdown, SplitsTheSpanOfTheRecordedGpuOps) {
  test::SyntheticTrace t;
  addRecordedOps(t);
  expectSplit(rankTimeBreakdown(t.build()), 7'000, 2'000, 1'000, 4'000);
}

TEST(RankTimeBreakdown, AKernelLaunchedBeforeRecordingIsLeftOut) {
  // The same, and an NCCL kernel without launch call from 0 to 10 us
  // (issued before recording began, spinning into it). Counted, it would
  // make the span 0-12 us and 10 us of it non-compute.
  test::SyntheticTrace t;
  t.gpu("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 0, 10'000, 40, 20);
  addRecordedOps(t);
  expectSplit(rankTimeBreakdown(t.build()), 7'000, 2'000, 1'000, 4'000);
}

TEST(RankTimeBreakdown, WithoutLinkedLaunchesEveryOpCounts) {
  // No CPU side: the NCCL kernel is counted, over a span from 0 us.
  Trace trace = test::SyntheticTrace()
                    .gpu("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 0, 10'000, -1, 20)
                    .gpu("gemm", 5'000, 1'000, -1)
                    .gpu("gemm", 11'000, 1'000, -1)
                    .build();
  expectSplit(rankTimeBreakdown(trace), 12'000, 2'000, 9'000, 1'000);
}

}  // namespace
}  // namespace fuselab
