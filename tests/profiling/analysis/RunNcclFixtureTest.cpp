// The run analysis on our own two-GPU NCCL capture (tp_mlp eager, 8 steps,
// rank 1 sleeping 3 ms before each all-reduce): its record_param_comms ops
// carry no process group, and the two processes numbered their NCCL streams
// differently, so the collectives are keyed by the files' one process group.
#include <gtest/gtest.h>

#include "profiling/analysis/run/RunAnalysis.h"
#include "profiling/analysis/run/RunGroupKeys.h"
#include "profiling/trace/RunLoader.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

class NcclFuselabRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { run_ = new fuselab::Run(loadRun(traceFilesIn(test::ncclFuselabFixtureDir()))); }
  static void TearDownTestSuite() { delete run_; }
  static fuselab::Run* run_;
};
fuselab::Run* NcclFuselabRun::run_ = nullptr;

TEST_F(NcclFuselabRun, EveryAllReduceIsMatchedThroughTheOnlyProcessGroup) {
  const RunAnalysis a = analyzeRun(*run_);
  ASSERT_EQ(a.collectives_per_rank.size(), 2u);
  for (const auto& rank : a.collectives_per_rank) {
    ASSERT_EQ(rank.size(), 8u);
    for (const CollectiveEvent& c : rank) {
      EXPECT_EQ(c.group, "pg 0");
      EXPECT_EQ(c.kind, CollectiveKind::AllReduce);
    }
  }
  EXPECT_EQ(a.alignment.method, AlignMethod::Collectives) << a.alignment.note;
  EXPECT_EQ(a.alignment.collectives_used, 8u);
  EXPECT_EQ(a.alignment.mismatched, 0u);
  EXPECT_LT(a.alignment.residual_skew_ns, 100'000);
  ASSERT_EQ(a.collectives.size(), 8u);
}

TEST_F(NcclFuselabRun, TheSleepingRankIsLateAtEveryStepByAboutItsSleep) {
  const RunAnalysis a = analyzeRun(*run_);
  ASSERT_EQ(a.collectives.size(), 8u);
  for (const CollectiveStats& s : a.collectives) {
    EXPECT_EQ(s.late_rank, 1);
    // The sleep is 3 ms; the wait also holds rank 1's own GEMMs before it.
    EXPECT_GT(s.wait_ns, 2'900'000) << s.index;
    EXPECT_LT(s.wait_ns, 4'500'000) << s.index;
  }
  ASSERT_EQ(a.stragglers.size(), 1u);
  EXPECT_EQ(a.stragglers[0].rank, 1);
  EXPECT_EQ(a.stragglers[0].late_count, 8u);
}

TEST_F(NcclFuselabRun, BusyIsSplitFromWaitingAndTheRunIsStragglerBound) {
  const RunAnalysis a = analyzeRun(*run_);
  ASSERT_EQ(a.ranks.size(), 2u);
  // Rank 0's NCCL kernel spins about 3.5 ms per step: GPU utilization counts
  // it as busy, the split counts it as non-compute.
  const RankStats& r0 = a.ranks[0];
  EXPECT_GT(r0.utilization.fraction, 0.8);
  EXPECT_LT(r0.time.fraction(r0.time.compute_ns), 0.1);
  EXPECT_GT(r0.time.fraction(r0.time.non_compute_ns), 0.8);
  for (const RankStats& r : a.ranks) {
    const RankTimeBreakdown& t = r.time;
    EXPECT_EQ(t.compute_ns + t.non_compute_ns + t.idle_ns, t.span_ns) << r.rank;
  }
  EXPECT_EQ(a.verdict.kind, RunVerdictKind::StragglerBound) << a.verdict.explanation;
  EXPECT_EQ(a.verdict.late_rank, 1);
  EXPECT_GT(a.verdict.waited_share, 0.5);
  EXPECT_NE(a.verdict.explanation.find("rank 1 arrived last at 8 of 8 collectives"), std::string::npos)
      << a.verdict.explanation;
}

// Two GPU collectives per rank on the given streams, no process group named.
std::vector<std::vector<CollectiveEvent>> onStreams(std::vector<std::vector<std::string>> streams) {
  std::vector<std::vector<CollectiveEvent>> per_rank;
  for (const auto& keys : streams) {
    per_rank.emplace_back();
    for (const std::string& k : keys) {
      CollectiveEvent c;
      c.on_gpu = true;
      c.group = k;
      per_rank.back().push_back(c);
    }
  }
  return per_rank;
}

std::vector<std::string> groupsOf(const std::vector<CollectiveEvent>& events) {
  std::vector<std::string> out;
  for (const CollectiveEvent& c : events) out.push_back(c.group);
  return out;
}

TEST(RunGroupKeys, StreamKeysThatAgreeAcrossRanksAreKept) {
  fuselab::Run run;
  run.ranks.resize(2);
  auto per_rank = onStreams({{"stream 7", "stream 9"}, {"stream 9", "stream 7"}});
  keyUnnamedGroups(run, per_rank);
  EXPECT_EQ(groupsOf(per_rank[0]), (std::vector<std::string>{"stream 7", "stream 9"}));
  EXPECT_EQ(groupsOf(per_rank[1]), (std::vector<std::string>{"stream 9", "stream 7"}));
}

TEST(RunGroupKeys, StreamsThatDifferAreNumberedByFirstUseWithoutOneGroup) {
  fuselab::Run run;
  run.ranks.resize(2);
  auto per_rank = onStreams({{"stream 7", "stream 9", "stream 7"}, {"stream 13", "stream 15", "stream 13"}});
  per_rank[1].push_back(per_rank[1].front());
  per_rank[1].back().group = "pg 3";  // named: left alone
  keyUnnamedGroups(run, per_rank);
  EXPECT_EQ(groupsOf(per_rank[0]), (std::vector<std::string>{"comm stream 0", "comm stream 1", "comm stream 0"}));
  EXPECT_EQ(groupsOf(per_rank[1]),
            (std::vector<std::string>{"comm stream 0", "comm stream 1", "comm stream 0", "pg 3"}));
}

TEST(RunGroupKeys, StreamsThatDifferJoinTheRanksOnlyProcessGroup) {
  fuselab::Run run;
  run.ranks.resize(2);
  run.ranks[0].info.groups["0"] = "[0,1]";
  auto per_rank = onStreams({{"stream 7"}, {"stream 13"}});
  keyUnnamedGroups(run, per_rank);
  EXPECT_EQ(groupsOf(per_rank[0]), (std::vector<std::string>{"pg 0"}));
  EXPECT_EQ(groupsOf(per_rank[1]), (std::vector<std::string>{"comm stream 0"}));  // its file lists no group
}

TEST_F(NcclFuselabRun, WithoutAMatchTheNoteSaysWhatEachRankHas) {
  // Rank 1's collectives renamed into another group: every rank has
  // collectives, none match, and the note says why instead of falling back
  // to the epoch silently.
  fuselab::Run run = loadRun(traceFilesIn(test::ncclFuselabFixtureDir()));
  run.ranks[1].info.groups = {{"5", "[0,1]"}};
  const RunAnalysis a = analyzeRun(run);
  EXPECT_EQ(a.alignment.method, AlignMethod::Epoch);
  EXPECT_NE(a.alignment.note.find("none matched"), std::string::npos) << a.alignment.note;
  EXPECT_NE(a.alignment.note.find("rank 0 has 8 in [pg 0]"), std::string::npos) << a.alignment.note;
  EXPECT_NE(a.alignment.note.find("rank 1 has 8 in [pg 5]"), std::string::npos) << a.alignment.note;
}

}  // namespace
}  // namespace fuselab
