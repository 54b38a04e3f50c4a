// Layout of a merged run: lanes grouped by rank (collapsible), and the rank x
// time overview strip's cells.
#include <gtest/gtest.h>

#include "profiling/trace/RunMerge.h"
#include "tests/support/RankTraceBuilder.h"
#include "ui/layout/LaneLayout.h"
#include "ui/layout/RunOverview.h"

namespace fuselab::ui {
namespace {

using test::RankTraceBuilder;

constexpr const char* kAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";

// Rank r: a GEMM [0, 400) then an all-reduce [400, 1000), both ranks; rank 1
// also runs a CPU op.
fuselab::Run twoRankRun() {
  std::vector<RankTrace> ranks;
  for (int r = 0; r < 2; ++r) {
    RankTraceBuilder b;
    b.compute("gemm", 0, 400).nccl(kAllReduce, "allreduce", 1024, 300, 400, 1000);
    if (r == 1) b.cpuOp("aten::mm", 0, 200);
    ranks.push_back(b.build(r));
  }
  return test::runOf(std::move(ranks));
}

MergedRun twoRanks() { return mergeRun(twoRankRun(), {0, 0}); }

TEST(RunLayout, LanesAreGroupedByRankUnderAHeaderEach) {
  const MergedRun m = twoRanks();
  LaneLayout l = layoutLanes(*m.trace);
  ASSERT_EQ(l.headers.size(), 2u);
  EXPECT_EQ(l.headers[0].title, "rank 0");
  EXPECT_EQ(l.headers[0].rank, 0);
  EXPECT_EQ(l.headers[0].cpu_lanes, 1u);
  EXPECT_EQ(l.headers[0].gpu_lanes, 2u);
  EXPECT_EQ(l.headers[1].rank, 1);
  ASSERT_EQ(l.lanes.size(), 6u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(m.trace->tracks[l.lanes[i].track].rank, 0);
  for (size_t i = 3; i < 6; ++i) EXPECT_EQ(m.trace->tracks[l.lanes[i].track].rank, 1);
  EXPECT_EQ(l.lanes[0].group, LaneGroup::Cpu);  // CPU above GPU within a rank
  EXPECT_EQ(l.lanes[1].group, LaneGroup::Gpu);
  EXPECT_EQ(l.rankHeader(1), &l.headers[1]);
  EXPECT_EQ(l.headerAt(l.headers[1].top + 1), &l.headers[1]);
  EXPECT_EQ(l.headerAt(l.lanes[0].top + 1), nullptr);

  LaneLayoutOptions o;
  o.collapsed_ranks = {0};
  LaneLayout collapsed = layoutLanes(*m.trace, o);
  ASSERT_EQ(collapsed.lanes.size(), 3u);
  EXPECT_TRUE(collapsed.headers[0].collapsed);
  EXPECT_EQ(collapsed.headers[0].gpu_lanes, 2u) << "hidden lanes still counted";
  EXPECT_FLOAT_EQ(collapsed.headers[1].top, o.header_height);
  EXPECT_EQ(collapsed.laneOfTrack(m.track_of[0][0]), nullptr);
}

TEST(RunLayout, ASingleTraceKeepsItsCpuAndGpuGroups) {
  RankTrace r = RankTraceBuilder().compute("gemm", 0, 400).build(0);
  LaneLayout l = layoutLanes(r.trace);
  ASSERT_EQ(l.headers.size(), 2u);
  EXPECT_EQ(l.headers[0].title, "CPU");
  EXPECT_EQ(l.headers[0].rank, -1);
}

TEST(RunOverview, CoverageOfBinsIsSpreadEvenlyOverEachBin) {
  // Bins of 100 ns from 1000: half covered, empty, full.
  const Coverage c = Coverage::fromBins(1000, 100, {50, 0, 100});
  EXPECT_EQ(c.coveredNs(0, 2000), 150);
  EXPECT_EQ(c.coveredNs(1000, 1050), 25);
  EXPECT_EQ(c.coveredNs(1100, 1200), 0);
  EXPECT_EQ(c.coveredNs(1250, 1300), 50);
  EXPECT_EQ(c.size(), 2u) << "empty bins are left out";
  EXPECT_EQ(Coverage().coveredNs(0, 10), 0);
}

TEST(RunOverview, CellsSayBusyCommunicatingOrIdle) {
  const fuselab::Run run = twoRankRun();
  const auto rows = buildRankActivity(run, analyzeRun(run));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].rank, 1);
  std::vector<RankActivity> cells;
  // Five cells of 250 ns over [0, 1250): GEMM, GEMM+comm, comm, comm, nothing.
  rankActivityCells(rows, 0, 1250, 5, cells);
  ASSERT_EQ(cells.size(), 10u);
  const std::vector<RankActivity> want = {RankActivity::Busy, RankActivity::Busy, RankActivity::Communicating,
                                          RankActivity::Communicating, RankActivity::Idle};
  EXPECT_EQ(std::vector<RankActivity>(cells.begin(), cells.begin() + 5), want);
  EXPECT_EQ(std::vector<RankActivity>(cells.begin() + 5, cells.end()), want);
  std::vector<ActivityRun> runs;
  activityRuns(cells, rows.size(), 5, runs);
  ASSERT_EQ(runs.size(), 4u);  // per rank: busy [0, 2), communicating [2, 4)
  EXPECT_EQ(runs[1].row, 0u);
  EXPECT_EQ(runs[1].first, 2);
  EXPECT_EQ(runs[1].end, 4);
  EXPECT_EQ(runs[1].state, RankActivity::Communicating);
  EXPECT_EQ(runs[2].row, 1u);
}

TEST(RunOverview, RanksWithoutAGpuAreBusyOnTheirCpuOps) {
  std::vector<RankTrace> ranks;
  ranks.push_back(RankTraceBuilder().cpuOp("aten::mm", 0, 500).gloo("all_reduce", 16, 500, 1000).build(0));
  const fuselab::Run run = test::runOf(std::move(ranks));
  std::vector<RankActivity> cells;
  rankActivityCells(buildRankActivity(run, analyzeRun(run)), 0, 1000, 2, cells);
  EXPECT_EQ(cells, (std::vector<RankActivity>{RankActivity::Busy, RankActivity::Communicating}));
}

}  // namespace
}  // namespace fuselab::ui
