#include "profiling/analysis/run/RunAlignment.h"

#include <gtest/gtest.h>

#include "profiling/analysis/common/Intervals.h"
#include "profiling/analysis/run/RunAnalysis.h"
#include "tests/support/RankTraceBuilder.h"

namespace fuselab {
namespace {

using test::RankTraceBuilder;

constexpr int64_t kMs = 1'000'000;

// Three ranks run five all-reduces that end at true time 10 ms x k (+ up to
// 3 us of jitter); rank 1's clock reads 50 ms late, rank 2's 50 ms early.
Run threeRanksWithSkewedClocks(int64_t base1 = 0) {
  const int64_t clock_error[3] = {0, 50 * kMs, -50 * kMs};
  const int64_t jitter[3][5] = {{0, 1000, 0, 2000, 0}, {3000, 0, 1000, 0, 2000}, {1000, 2000, 3000, 0, 1000}};
  std::vector<RankTrace> ranks;
  for (int r = 0; r < 3; ++r) {
    RankTraceBuilder b;
    for (int k = 1; k <= 5; ++k) {
      const int64_t end = k * 10 * kMs + jitter[r][k - 1] + clock_error[r];
      const int64_t start = end - 2 * kMs - r * 100'000;  // rank 2 arrives first
      b.nccl("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "allreduce", 1 << 20, start - 50'000, start, end, 3);
    }
    ranks.push_back(b.build(r, r == 1 ? base1 : 0));
  }
  return test::runOf(std::move(ranks));
}

TEST(RunAlignment, MedianOfEvenAndOddCounts) {
  EXPECT_EQ(medianNs({}), 0);
  EXPECT_EQ(medianNs({5, 1, 3}), 3);
  EXPECT_EQ(medianNs({4, 1, 3, 10}), 3);  // (3 + 4) / 2, rounded down
  EXPECT_EQ(medianNs({-8, -2}), -5);
}

TEST(RunAlignment, DensestWindowLeavesOutPairsThatAreNotTheSameCollective) {
  // End differences (us) of the HTA fixture's order-paired collectives: four
  // agree within 0.5 ms, four are other collectives 60-250 ms away.
  std::vector<int64_t> diffs;
  for (int64_t us : {-67842, -189, -55, 8, 332, 62789, 87882, 253508}) diffs.push_back(us * 1000);
  EXPECT_EQ(densestMedianNs(diffs, 1'000'000), -23'500);
  EXPECT_EQ(medianNs(diffs), 170'000);
  EXPECT_EQ(densestMedianNs({5, 1, 3}, 100), 3);  // all agree: the plain median
}

TEST(RunAlignment, MethodNames) {
  EXPECT_EQ(alignMethodFromName("none"), AlignMethod::None);
  EXPECT_EQ(alignMethodFromName("epoch"), AlignMethod::Epoch);
  EXPECT_EQ(alignMethodFromName("collectives"), AlignMethod::Collectives);
  EXPECT_EQ(alignMethodFromName("ntp"), std::nullopt);
  EXPECT_EQ(alignMethodName(AlignMethod::Collectives), "collectives");
}

TEST(RunAlignment, CollectiveEndsUndoFiftyMillisecondsEitherWay) {
  const fuselab::Run run = threeRanksWithSkewedClocks();
  const RunAnalysis a = analyzeRun(run);  // default: collectives, as they match
  EXPECT_EQ(a.alignment.method, AlignMethod::Collectives);
  EXPECT_EQ(a.alignment.collectives_used, 5u);
  ASSERT_EQ(a.alignment.offsets_ns.size(), 3u);
  EXPECT_EQ(a.alignment.offsets_ns[0], 0);
  // Jitter is at most 3 us, so the true skew between any two ranks is too.
  EXPECT_NEAR(double(a.alignment.offsets_ns[1]), double(-50 * kMs), 3000.0);
  EXPECT_NEAR(double(a.alignment.offsets_ns[2]), double(50 * kMs), 3000.0);
  EXPECT_LE(a.alignment.residual_skew_ns, 3000);
  EXPECT_TRUE(a.alignment.note.empty()) << a.alignment.note;
}

TEST(RunAlignment, EpochKeepsTheClocksAndShowsTheirSkew) {
  const fuselab::Run run = threeRanksWithSkewedClocks();
  const RunAnalysis a = analyzeRun(run, {{}, AlignMethod::Epoch});
  EXPECT_EQ(a.alignment.method, AlignMethod::Epoch);
  EXPECT_EQ(a.alignment.offsets_ns, (std::vector<int64_t>{0, 0, 0}));
  EXPECT_GE(a.alignment.residual_skew_ns, 100 * kMs - 3000);  // rank 1 vs rank 2
}

TEST(RunAlignment, NoneIgnoresEachFilesEpoch) {
  // Rank 1's file has an epoch 7 ms after the others': "none" undoes it.
  const fuselab::Run run = threeRanksWithSkewedClocks(7 * kMs);
  const RunAnalysis none = analyzeRun(run, {{}, AlignMethod::None});
  EXPECT_EQ(none.alignment.offsets_ns, (std::vector<int64_t>{0, -7 * kMs, 0}));
  const RunAnalysis epoch = analyzeRun(run, {{}, AlignMethod::Epoch});
  EXPECT_EQ(epoch.alignment.offsets_ns, (std::vector<int64_t>{0, 0, 0}));
}

TEST(RunAlignment, CollectivesFallBackToTheEpochWhenNothingMatches) {
  std::vector<RankTrace> ranks;
  ranks.push_back(RankTraceBuilder().compute("gemm", 0, 1000).build(0));
  ranks.push_back(RankTraceBuilder().compute("gemm", 0, 1000).build(1));
  const fuselab::Run run = test::runOf(std::move(ranks));
  const RunAnalysis a = analyzeRun(run, {{}, AlignMethod::Collectives});
  EXPECT_EQ(a.alignment.method, AlignMethod::Epoch);
  EXPECT_NE(a.alignment.note.find("no collective matched"), std::string::npos);
  EXPECT_EQ(analyzeRun(run).alignment.method, AlignMethod::Epoch);
}

TEST(RunAlignment, ARankWithoutCollectivesKeepsTheEpochAndIsNamed) {
  fuselab::Run run = threeRanksWithSkewedClocks();
  run.ranks.push_back(RankTraceBuilder().compute("gemm", 0, 1000).build(3));
  run.world_size = 4;
  const RunAnalysis a = analyzeRun(run);
  EXPECT_EQ(a.alignment.offsets_ns[3], 0);
  EXPECT_NE(a.alignment.note.find("keep the epoch: 3"), std::string::npos) << a.alignment.note;
}

}  // namespace
}  // namespace fuselab
