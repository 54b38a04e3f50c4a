// The run verdict from per-rank and per-collective figures: straggler-bound
// when a rank waits a large share of its span, communication-bound when
// transfers fill it, else each rank's own verdict.
#include <gtest/gtest.h>

#include "profiling/analysis/run/RunVerdict.h"

namespace fuselab {
namespace {

constexpr int64_t kMs = 1'000'000;

RankStats rank(int n, int64_t span_ns, int64_t busy_ns, int64_t wait_ns) {
  RankStats r;
  r.rank = n;
  r.kernels = 10;
  r.gpu_ops = 10;
  r.utilization.span_ns = span_ns;
  r.utilization.busy_ns = busy_ns;
  r.utilization.fraction = double(busy_ns) / double(span_ns);
  r.idle.host_wait_ns = span_ns - busy_ns;
  r.idle.gap_count = 1;
  r.wait_ns = wait_ns;
  return r;
}

CollectiveStats collective(int late_rank, int64_t wait_ns, int64_t transfer_ns) {
  CollectiveStats c;
  c.name = "all_reduce";
  c.late_rank = late_rank;
  c.wait_ns = wait_ns;
  c.transfer_ns = transfer_ns;
  c.busbw_gbps = 250.0;
  return c;
}

TEST(RunVerdict, ARankWaitingAFifthOfItsSpanMakesTheRunStragglerBound) {
  const std::vector<RankStats> ranks = {rank(0, 10 * kMs, 9 * kMs, 3 * kMs), rank(1, 10 * kMs, 1 * kMs, 0)};
  const std::vector<CollectiveStats> collectives = {collective(1, 3 * kMs, kMs / 10)};
  const RunVerdict v = decideRunVerdict(ranks, collectives, {{1, 1, 3 * kMs}});
  EXPECT_EQ(v.kind, RunVerdictKind::StragglerBound);
  EXPECT_EQ(v.late_rank, 1);
  EXPECT_DOUBLE_EQ(v.waited_share, 0.3);
  EXPECT_EQ(v.title, "Straggler-bound (rank 1)");
  EXPECT_NE(v.explanation.find("rank 0 spent 30.0% of its span"), std::string::npos) << v.explanation;
}

TEST(RunVerdict, ShortWaitsAndLongTransfersMakeItCommunicationBound) {
  const std::vector<RankStats> ranks = {rank(0, 10 * kMs, 9 * kMs, kMs / 10), rank(1, 10 * kMs, 9 * kMs, 0)};
  const std::vector<CollectiveStats> collectives = {collective(1, kMs / 10, 2 * kMs), collective(1, 0, 2 * kMs)};
  const RunVerdict v = decideRunVerdict(ranks, collectives, {{1, 1, kMs / 10}});
  EXPECT_EQ(v.kind, RunVerdictKind::CommunicationBound) << v.explanation;
  EXPECT_DOUBLE_EQ(v.transfer_share, 0.4);
  EXPECT_NE(v.explanation.find("250.0 GB/s"), std::string::npos) << v.explanation;
}

TEST(RunVerdict, OtherwiseEachRankIsJudgedAlone) {
  const std::vector<RankStats> ranks = {rank(0, 10 * kMs, 9 * kMs, 0), rank(1, 10 * kMs, 2 * kMs, 0)};
  const RunVerdict v = decideRunVerdict(ranks, {collective(0, 0, kMs / 100)}, {});
  EXPECT_EQ(v.kind, RunVerdictKind::PerRank);
  EXPECT_EQ(v.title, "Ranks differ");
  EXPECT_NE(v.explanation.find("rank 0: compute-bound"), std::string::npos) << v.explanation;
  EXPECT_NE(v.explanation.find("rank 1: overhead-bound"), std::string::npos) << v.explanation;
  const RunVerdict none = decideRunVerdict(ranks, {}, {});
  EXPECT_EQ(none.kind, RunVerdictKind::NoCollectives);
  EXPECT_NE(none.explanation.find("No collective matched"), std::string::npos) << none.explanation;
}

// A rank's own verdict counts its copies and memsets as GPU work, as a
// trace's does: a rank that only copied is judged by how busy that kept it.
TEST(RunVerdict, ARankThatOnlyCopiedIsJudgedByItsGpuTime) {
  RankStats copies = rank(1, 10 * kMs, 9 * kMs, 0);
  copies.kernels = 0;
  copies.gpu_ops = 4;
  const RunVerdict v = decideRunVerdict({rank(0, 10 * kMs, 9 * kMs, 0), copies}, {collective(0, 0, kMs / 100)}, {});
  EXPECT_EQ(v.kind, RunVerdictKind::PerRank);
  EXPECT_EQ(v.title, "Every rank compute-bound") << v.explanation;
  EXPECT_NE(v.explanation.find("rank 1: compute-bound"), std::string::npos) << v.explanation;
}

}  // namespace
}  // namespace fuselab
