// The run analysis on real torch.profiler NCCL runs from two GPUs
// (tests/data/nccl-2gpu-torch: two process groups, all-reduce, all-gather,
// reduce-scatter, broadcast, async and barrier collectives, rank 1 sleeping
// 3 ms per step) and on our own capture with communication fields
// (tests/data/nccl-2gpu-fuselab-comms).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "profiling/analysis/run/RunAnalysis.h"
#include "profiling/trace/RunLoader.h"
#include "profiling/trace/RunMerge.h"
#include "tests/support/SameRunAnalysis.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

constexpr int64_t kBigAllReduceBytes = 64 << 20;

fuselab::Run torchRun() { return loadRun(traceFilesIn(test::dataDir("nccl-2gpu-torch") / "run")); }

TEST(TorchNcclRun, EveryCollectiveOfBothGroupsMatches) {
  const RunAnalysis a = analyzeRun(torchRun());
  EXPECT_EQ(a.alignment.method, AlignMethod::Collectives) << a.alignment.note;
  EXPECT_EQ(a.alignment.mismatched, 0u);
  EXPECT_LT(a.alignment.residual_skew_ns, 10'000);
  std::map<std::string, int> seen;  // "kind group" -> count over the 3 steps
  for (const CollectiveStats& s : a.collectives) {
    EXPECT_EQ(s.arrivals.size(), 2u);
    ++seen[s.name + " " + s.group];
  }
  EXPECT_EQ(seen, (std::map<std::string, int>{{"all_reduce pg 0", 12},  // 16 MiB, async, barrier, 64 MiB
                                               {"all_gather pg 0", 3},
                                               {"reduce_scatter pg 0", 3},
                                               {"broadcast pg 0", 3},
                                               {"all_reduce pg 1", 3}}));
}

TEST(TorchNcclRun, TheSleepingRankIsTheStragglerAndTheVerdictSaysSo) {
  const RunAnalysis a = analyzeRun(torchRun());
  // The first all-reduce of each step (index 0, 7, 14 in the default group)
  // waits for rank 1's sleep.
  for (const CollectiveStats& s : a.collectives) {
    if (s.group != "pg 0" || s.index % 7 != 0) continue;
    EXPECT_EQ(s.late_rank, 1) << s.index;
    EXPECT_GT(s.wait_ns, 1'000'000) << s.index;
  }
  ASSERT_FALSE(a.stragglers.empty());
  EXPECT_EQ(a.stragglers[0].rank, 1);
  EXPECT_EQ(a.verdict.kind, RunVerdictKind::StragglerBound) << a.verdict.explanation;
  EXPECT_EQ(a.verdict.late_rank, 1);
}

TEST(TorchNcclRun, BusBandwidthOfA64MiBAllReduceMatchesCudaEventTiming) {
  std::ifstream in(test::dataDir("nccl-2gpu-torch") / "reference.json");
  const auto reference = nlohmann::json::parse(in);
  double timed = 0;  // the ranks' mean, GB/s
  for (const auto& r : reference["big_all_reduce"]) timed += r["busbw_gbps"].get<double>() / 2;
  const RunAnalysis a = analyzeRun(torchRun());
  int big = 0;
  for (const CollectiveStats& s : a.collectives) {
    if (s.bytes != kBigAllReduceBytes) continue;
    ++big;
    ASSERT_TRUE(s.busbw_gbps.has_value());
    EXPECT_NEAR(*s.busbw_gbps / timed, 1.0, 0.10) << *s.busbw_gbps << " GB/s from the trace, " << timed << " timed";
  }
  EXPECT_EQ(big, 3);
}

TEST(TorchNcclRun, CollectiveEndsUndoAFiftyMillisecondClockOffset) {
  const int64_t unshifted = analyzeRun(torchRun()).alignment.offsets_ns[1];
  for (const int64_t shift : {50'000'000, -50'000'000}) {
    fuselab::Run run = torchRun();
    for (Track& t : run.ranks[1].trace.tracks)
      for (int64_t& start : t.start_ns) start += shift;
    const RunAnalysis a = analyzeRun(run);
    EXPECT_EQ(a.alignment.method, AlignMethod::Collectives);
    EXPECT_NEAR(double(a.alignment.offsets_ns[1]), double(unshifted - shift), 1'000.0) << shift;
    EXPECT_EQ(a.collectives.size(), 24u);
  }
}

TEST(TorchNcclRun, RealigningEqualsAnalysingWithThatAlignment) {
  fuselab::Run run = torchRun();  // rank 1 50 ms late: epoch and collectives disagree
  for (Track& t : run.ranks[1].trace.tracks)
    for (int64_t& start : t.start_ns) start += 50'000'000;
  const RunAnalysis by_collectives = analyzeRun(run, {{}, AlignMethod::Collectives});
  const RunAnalysis by_epoch = analyzeRun(run, {{}, AlignMethod::Epoch});
  ASSERT_NE(by_collectives.alignment.offsets_ns, by_epoch.alignment.offsets_ns);
  {
    SCOPED_TRACE("epoch -> collectives");
    test::expectSameRunAnalysis(realignRun(run, by_epoch, AlignMethod::Collectives), by_collectives);
  }
  {
    SCOPED_TRACE("collectives -> epoch");
    test::expectSameRunAnalysis(realignRun(run, by_collectives, AlignMethod::Epoch), by_epoch);
  }
}

TEST(TorchNcclRun, TheMergedRunHasTheRunsStepsNotEachRanks) {
  const fuselab::Run run = torchRun();
  const RunAnalysis a = analyzeRun(run);
  const MergedRun merged = mergeRun(run, a.alignment.offsets_ns);
  const std::vector<StepStats> steps = analyzeTrace(*merged.trace).steps;
  ASSERT_EQ(steps.size(), 3u);  // ProfilerStep#1..3, each spanning both ranks
  for (size_t k = 0; k < steps.size(); ++k) {
    int64_t first = INT64_MAX, last = INT64_MIN;  // step k's annotations on either rank
    for (const RankTrace& r : run.ranks) {
      const std::vector<StepStats> own = analyzeTrace(r.trace).steps;
      ASSERT_EQ(own.size(), 3u);
      const int64_t offset = a.alignment.offsets_ns[size_t(run.indexOfRank(r.rank))];
      first = std::min(first, own[k].start_ns + offset);
      last = std::max(last, own[k].end_ns + offset);
    }
    EXPECT_EQ(steps[k].start_ns, first) << k;
    EXPECT_EQ(steps[k].end_ns, last) << k;
    EXPECT_GT(steps[k].kernels, 0u);
  }
}

TEST(FuselabNcclRunWithFields, CollectivesAreKeyedByTheirProcessGroupName) {
  const RunAnalysis a = analyzeRun(loadRun(traceFilesIn(test::dataDir("nccl-2gpu-fuselab-comms"))));
  for (const auto& rank : a.collectives_per_rank)
    for (const CollectiveEvent& c : rank) {
      EXPECT_EQ(c.group, "pg 0");      // record_param_comms' Process Group Name
      EXPECT_EQ(c.group_size, 2);      // its Group size
      EXPECT_EQ(c.in_bytes, 64 * 768 * 2);  // In msg nelems x bf16
    }
  ASSERT_EQ(a.collectives.size(), 8u);
  for (const CollectiveStats& s : a.collectives) {
    EXPECT_EQ(s.late_rank, 1);
    EXPECT_GT(s.wait_ns, 2'900'000);
  }
  EXPECT_EQ(a.verdict.kind, RunVerdictKind::StragglerBound);
}

}  // namespace
}  // namespace fuselab
