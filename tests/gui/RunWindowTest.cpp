// A run in the window: the two-rank fixture folder opened in the Workspace,
// driven frame by frame (a hidden GL window provides the context): rank
// headers that collapse on a click, the jump to a rank, the collectives'
// late arrivals, realignment, and a screenshot with the overview strip and
// the collective links.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cstdlib>
#include <memory>

#include "app/gui/OffscreenRenderer.h"
#include "tests/gui/DrivenWorkspace.h"
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestPaths.h"
#include "ui/Theme.h"

namespace fuselab {
namespace {

class RunWindow : public test::DrivenWorkspace {
 protected:
  void SetUp() override {
    start(test::multirankFixtureDir().string());  // a folder: a run
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_TRUE(ws_->run());
  }
  // An event of `rank` in the merged trace that is on screen now.
  std::optional<EventRef> visibleEventOf(int rank) {
    const Trace& t = *ws_->trace();
    for (uint32_t ti = 0; ti < t.tracks.size(); ++ti) {
      if (t.tracks[ti].rank != rank) continue;
      for (uint32_t i = 0; i < t.tracks[ti].size(); ++i)
        if (ws_->timeline().screenCenterOf({ti, i})) return EventRef{ti, i};
    }
    return std::nullopt;
  }

};

TEST_F(RunWindow, AClickOnARankHeaderCollapsesAndExpandsIt) {
  ui::TimelineView& tl = ws_->timeline();
  ASSERT_TRUE(visibleEventOf(0));
  auto header = tl.rankHeaderPos(0);
  ASSERT_TRUE(header);
  click(*header);
  frames(1);  // laid out again
  EXPECT_TRUE(tl.rankCollapsed(0));
  EXPECT_FALSE(visibleEventOf(0)) << "a collapsed rank shows its header only";
  // Rank 1's lanes moved up into view.
  EXPECT_TRUE(visibleEventOf(1));
  header = tl.rankHeaderPos(0);
  ASSERT_TRUE(header);
  click(*header);
  frames(1);
  EXPECT_FALSE(tl.rankCollapsed(0));
  EXPECT_TRUE(visibleEventOf(0));
}

TEST_F(RunWindow, JumpingToARankScrollsItsLanesIntoView) {
  ui::TimelineView& tl = ws_->timeline();
  EXPECT_FALSE(visibleEventOf(1)) << "rank 0 fills the view at first";
  tl.scrollToRank(1);
  frames(2);
  EXPECT_TRUE(visibleEventOf(1));
}

TEST_F(RunWindow, LateArrivalsAreTheLateRanksKernelsInTheMergedTrace) {
  const RunView& run = *ws_->run();
  ASSERT_EQ(run.analysis->collectives.size(), 4u);
  const Trace& merged = *ws_->trace();
  for (size_t i = 0; i < run.analysis->collectives.size(); ++i) {
    const CollectiveStats& s = run.analysis->collectives[i];
    // The late arrival in the merged trace: the late rank's collective kernel, at its arrival time.
    EventRef late{};
    for (const CollectiveArrival& a : s.arrivals)
      if (a.rank == s.late_rank) late = *run.mergedEvent(a.rank_pos, a.event);
    EXPECT_EQ(merged.tracks[late.track].rank, s.late_rank);
    EXPECT_TRUE(merged.name(late).starts_with("ncclKernel_"));
    EXPECT_EQ(merged.tracks[late.track].start_ns[late.index], s.last_arrival_ns);
  }
}

TEST_F(RunWindow, RealigningKeepsTheRanksAndChangesTheOffsets) {
  EXPECT_EQ(ws_->run()->analysis->alignment.method, AlignMethod::Collectives);
  const auto before = ws_->run()->analysis->alignment.offsets_ns;
  const auto ranks = ws_->run()->run;
  EXPECT_NE(before[1], 0);
  ws_->realignRun(AlignMethod::Epoch);
  ws_->waitIdle();
  ASSERT_TRUE(ws_->run());
  EXPECT_EQ(ws_->run()->analysis->alignment.method, AlignMethod::Epoch);
  EXPECT_EQ(ws_->run()->analysis->alignment.offsets_ns, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(ws_->run()->run, ranks) << "the ranks are shared, not reloaded";
  frames(2);
}

size_t countColour(const uint8_t* rgba, int width, int height, ImU32 colour) {
  const ImVec4 c = ImGui::ColorConvertU32ToFloat4(colour);
  const int want[3] = {int(c.x * 255 + 0.5f), int(c.y * 255 + 0.5f), int(c.z * 255 + 0.5f)};
  size_t n = 0;
  for (size_t i = 0; i < size_t(width) * size_t(height); ++i) {
    const uint8_t* p = rgba + 4 * i;
    n += std::abs(p[0] - want[0]) <= 2 && std::abs(p[1] - want[1]) <= 2 && std::abs(p[2] - want[2]) <= 2;
  }
  return n;
}

TEST_F(RunWindow, CollectivesAreLinkedAcrossRanksWithTheLateArrivalMarked) {
  // Rank 0 collapsed: both ranks' collective kernels are on screen.
  ws_->timeline().toggleRank(0);
  OffscreenFrame f;
  f.width = 1400;
  f.height = 800;
  f.area = ScreenshotArea::Timeline;
  const RgbaImage img = renderOffscreen(*ws_, f);
  const ui::Theme th = ui::makeTheme(ui::ThemeKind::Dark);
  EXPECT_GT(countColour(img.pixels.data(), img.width, img.height, th.late_arrival), 10u)
      << "the late arrivals' markers";
  ws_->timeline().setCollectiveLinks({});
  const RgbaImage without = renderOffscreen(*ws_, f);
  EXPECT_EQ(countColour(without.pixels.data(), without.width, without.height, th.late_arrival), 0u);
}

// The same run on a machine too small to hold it (FUSELAB_AVAILABLE_MEMORY):
// the figures of every rank, no events until a rank's lanes are asked for.
class LargeRunWindow : public test::DrivenWorkspace {
 protected:
  void SetUp() override {
    ::setenv("FUSELAB_AVAILABLE_MEMORY", "200M", 1);  // two ranks' imports need about 130 MB
    start(test::multirankFixtureDir().string());
  }
  void TearDown() override {
    ::unsetenv("FUSELAB_AVAILABLE_MEMORY");
    DrivenWorkspace::TearDown();
  }
};

TEST_F(LargeRunWindow, ShowsEveryRanksFiguresAndLoadsLanesOnDemand) {
  if (IsSkipped()) return;
  ASSERT_TRUE(ws_->run());
  const std::shared_ptr<const RunView> dropped = ws_->run();
  ASSERT_TRUE(dropped->eventsDropped());
  EXPECT_EQ(ws_->trace()->eventCount(), 0u);
  EXPECT_EQ(dropped->analysis->collectives.size(), 4u) << "matched from the summaries";
  EXPECT_FALSE(ws_->timeline().criticalPath()) << "the path needs every rank's events";

  ws_->loadRankLanes(1);
  ws_->waitIdle();
  ASSERT_TRUE(ws_->run()) << ws_->error();
  EXPECT_TRUE(ws_->run()->hasLanes(1));
  EXPECT_FALSE(ws_->run()->hasLanes(0));
  EXPECT_GT(ws_->trace()->eventCount(), 0u);
  EXPECT_EQ(ws_->run()->run, dropped->run) << "the ranks' summaries are shared, not read again";
  frames(2);

  ws_->loadRankLanes(0);  // 25 MB of room for lanes: rank 1's go
  ws_->waitIdle();
  EXPECT_TRUE(ws_->run()->hasLanes(0));
  EXPECT_FALSE(ws_->run()->hasLanes(1));
  frames(2);
}

TEST(RunWorkspace, SeveralFilesAreOneRunAndBadFoldersSayWhy) {
  Workspace ws;
  const auto dir = test::multirankFixtureDir();
  ws.openPaths({(dir / "rank-0.json.gz").string(), (dir / "rank-1.json.gz").string()});
  ws.waitIdle();
  ASSERT_TRUE(ws.run()) << ws.error();
  EXPECT_EQ(ws.run()->run->ranks.size(), 2u);
  const auto before = ws.trace();

  const auto empty = test::scratchDir("RunWorkspaceEmpty");
  ws.openTrace(empty.string());
  ws.waitIdle();
  EXPECT_NE(ws.error().find("no trace files"), std::string::npos) << ws.error();
  EXPECT_EQ(ws.trace(), before) << "the run stays open";

  ws.openPaths({(dir / "rank-0.json.gz").string(), (dir / "rank-0.json.gz").string()});
  ws.waitIdle();
  EXPECT_NE(ws.error().find("are both rank 0"), std::string::npos) << ws.error();
  EXPECT_EQ(ws.trace(), before);

  ws.openTrace(test::fixture("mlp_eager.json.gz").string());  // back to one trace: no run
  ws.waitIdle();
  EXPECT_FALSE(ws.run());
}

TEST(RunScreenshot, TheOverviewStripShowsBusyAndCommunicatingRanks) {
  const auto scratch = test::scratchDir("RunScreenshot");
  const auto png = scratch / "run.png";
  auto r = test::runFuselab({"screenshot", "--trace", test::multirankFixtureDir().string(), "--out", png.string(),
                             "--width", "1400", "--height", "800"},
                            scratch);
  if (r.exit_code == 2) GTEST_SKIP() << "no display: " << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const test::Image img = test::readPng(png);
  ASSERT_EQ(img.width, 1400);
  const ui::Theme th = ui::makeTheme(ui::ThemeKind::Dark);
  EXPECT_GT(countColour(img.rgba.data(), img.width, img.height, th.activity[2]), 50u) << "communicating cells";
  EXPECT_GT(countColour(img.rgba.data(), img.width, img.height, th.activity[1]), 50u) << "busy cells";
}

}  // namespace
}  // namespace fuselab
