#include "profiling/analysis/run/RunCollectives.h"

#include <gtest/gtest.h>

#include "profiling/analysis/run/RunAnalysis.h"
#include "tests/support/RankTraceBuilder.h"

namespace fuselab {
namespace {

using test::RankTraceBuilder;

constexpr const char* kAllReduce = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)";
constexpr int64_t kUs = 1000;

TEST(RunMatching, ARankThatMissedTheFirstCollectiveStillPairsTheRest) {
  std::vector<std::vector<CollectiveEvent>> per_rank(2);
  auto add = [&](size_t r, const char* name, int64_t bytes, int64_t start) {
    CollectiveEvent c;
    c.name = name;
    c.kind = collectiveKindFromText(name);
    c.group = "pg 0";
    c.in_bytes = bytes;
    c.start_ns = start;
    c.end_ns = start + 10;
    per_rank[r].push_back(c);
  };
  for (int64_t bytes : {100, 200, 300}) add(0, "all_reduce", bytes, bytes);
  add(0, "all_to_all", 7, 400);
  // Rank 1's window started after the first all-reduce; its all-to-all sends
  // another size (that is allowed), its all-reduces must agree.
  for (int64_t bytes : {200, 300}) add(1, "all_reduce", bytes, bytes);
  add(1, "all_to_all", 9, 400);
  auto matched = matchCollectives(per_rank);
  ASSERT_EQ(matched.size(), 3u);
  EXPECT_EQ(matched[0].index, 1u);
  EXPECT_EQ(matched[0].members[1].event, 0u);
  EXPECT_EQ(matched[2].name, "all_to_all");
  EXPECT_EQ(matched[2].members[1].event, 2u);
}

TEST(RunCollectives, WaitTransferLateRankAndBandwidth) {
  // Rank 0 enters at 100 us, rank 1 at 300 us (it ran a long GEMM first);
  // both end at 400 us: wait 200 us, transfer 100 us.
  std::vector<RankTrace> ranks;
  ranks.push_back(RankTraceBuilder().nccl(kAllReduce, "allreduce", 25'000'000, 80 * kUs, 100 * kUs, 400 * kUs).build(0));
  ranks.push_back(RankTraceBuilder()
                      .compute("ampere_sgemm_128x64_nn", 50 * kUs, 249 * kUs)
                      .nccl(kAllReduce, "allreduce", 25'000'000, 80 * kUs, 300 * kUs, 400 * kUs)
                      .build(1));
  const fuselab::Run run = test::runOf(std::move(ranks));
  const RunAnalysis a = analyzeRun(run, {{}, AlignMethod::Epoch});
  ASSERT_EQ(a.collectives.size(), 1u);
  const CollectiveStats& s = a.collectives[0];
  EXPECT_EQ(s.name, "all_reduce");
  EXPECT_EQ(s.group, "pg 0");
  EXPECT_EQ(s.start_ns, 100 * kUs);
  EXPECT_EQ(s.wait_ns, 200 * kUs);
  EXPECT_EQ(s.transfer_ns, 100 * kUs);
  EXPECT_EQ(s.bytes, 100'000'000);
  ASSERT_TRUE(s.algbw_gbps && s.busbw_gbps);
  EXPECT_DOUBLE_EQ(*s.algbw_gbps, 1000.0);          // 100 MB in 100 us
  EXPECT_DOUBLE_EQ(*s.busbw_gbps, 1000.0 * 2 * 1 / 2);  // x 2(n-1)/n, n = 2
  EXPECT_EQ(s.late_rank, 1);
  EXPECT_EQ(s.late_rank_before.kind, ArrivalCauseKind::Kernel);
  EXPECT_EQ(s.late_rank_before.name, "ampere_sgemm_128x64_nn");
  EXPECT_EQ(s.late_rank_before.idle_ns, 1 * kUs);

  ASSERT_EQ(a.ranks.size(), 2u);
  EXPECT_EQ(a.ranks[0].wait_ns, 200 * kUs);
  EXPECT_EQ(a.ranks[1].wait_ns, 0);
  EXPECT_EQ(a.ranks[0].comm_ns, 300 * kUs);
  EXPECT_EQ(a.ranks[1].late_count, 1u);
  EXPECT_EQ(a.ranks[1].wait_caused_ns, 200 * kUs);
  ASSERT_EQ(a.stragglers.size(), 1u);
  EXPECT_EQ(a.stragglers[0].rank, 1);
}

TEST(RunCollectives, TheLateRanksCpuOpOrIdleGapBeforeItsLaunch) {
  auto run_with = [](int64_t op_end) {
    std::vector<RankTrace> ranks;
    ranks.push_back(RankTraceBuilder().nccl(kAllReduce, "allreduce", 1024, 10 * kUs, 20 * kUs, 900 * kUs).build(0));
    // Rank 1's launch comes at 802 us, after a 500 us CPU op ending at op_end.
    ranks.push_back(RankTraceBuilder()
                        .cpuOp("aten::index_put_", op_end - 500 * kUs, 500 * kUs)
                        .nccl(kAllReduce, "allreduce", 1024, 800 * kUs, 805 * kUs, 900 * kUs)
                        .build(1));
    return test::runOf(std::move(ranks));
  };
  const fuselab::Run busy = run_with(790 * kUs);
  const ArrivalCause cpu = analyzeRun(busy).collectives.at(0).late_rank_before;
  EXPECT_EQ(cpu.kind, ArrivalCauseKind::CpuOp);
  EXPECT_EQ(cpu.name, "aten::index_put_");
  EXPECT_EQ(cpu.dur_ns, 500 * kUs);
  EXPECT_EQ(cpu.idle_ns, 12 * kUs);  // to the launch call at 802 us
  const fuselab::Run idle = run_with(600 * kUs);  // 202 us idle after a 500 us op: the op took longer
  EXPECT_EQ(analyzeRun(idle).collectives.at(0).late_rank_before.kind, ArrivalCauseKind::CpuOp);
  const fuselab::Run sleeping = run_with(200 * kUs);  // 602 us idle after a 500 us op
  const ArrivalCause gap = analyzeRun(sleeping).collectives.at(0).late_rank_before;
  EXPECT_EQ(gap.kind, ArrivalCauseKind::Idle);
  EXPECT_EQ(gap.idle_ns, 602 * kUs);
  EXPECT_EQ(gap.name, "aten::index_put_");
}

TEST(RunRanks, OverlapIsTheShareOfCommunicationUnderCompute) {
  EXPECT_DOUBLE_EQ(*overlapFraction({{0, 100}}, {{50, 200}}), 0.5);
  EXPECT_DOUBLE_EQ(*overlapFraction({{0, 100}, {200, 300}}, {{0, 10}, {5, 20}, {250, 400}}), 70.0 / 200.0);
  EXPECT_FALSE(overlapFraction({}, {{0, 10}}));
  EXPECT_DOUBLE_EQ(*overlapFraction({{0, 100}}, {}), 0.0);

  // A GEMM on another stream covers the second half of the all-reduce.
  RankTrace r = RankTraceBuilder()
                    .nccl(kAllReduce, "allreduce", 1024, 0, 100 * kUs, 200 * kUs)
                    .compute("gemm", 150 * kUs, 100 * kUs)
                    .build(0);
  EXPECT_DOUBLE_EQ(*commComputeOverlap(r.trace, findCollectives(r.trace)), 0.5);
  RankTrace cpu_only = RankTraceBuilder().gloo("all_reduce", 16, 0, 100).build(0);
  EXPECT_FALSE(commComputeOverlap(cpu_only.trace, findCollectives(cpu_only.trace)));
}

TEST(RunRanks, StragglersWorstFirst) {
  std::vector<RankStats> ranks(3);
  for (int i = 0; i < 3; ++i) ranks[i].rank = i;
  ranks[0].late_count = 5, ranks[0].wait_caused_ns = 10;
  ranks[2].late_count = 1, ranks[2].wait_caused_ns = 900;
  auto s = rankStragglers(ranks);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].rank, 2);
  EXPECT_EQ(s[1].rank, 0);
}

}  // namespace
}  // namespace fuselab
