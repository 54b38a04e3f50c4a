// A run in which rank 1's first NCCL kernel was launched before recording
// began (tests/hta/derive_prerecording_run.py: the two-GPU torch.profiler
// run with that kernel's launch call removed and the kernel starting 50 ms
// before the first step): Fit all shows what was recorded, not the 50 ms
// before it, the step band holds the steps alone, and the kernel is still
// drawn, dimmed and hatched, where the view goes to it.
#include <gtest/gtest.h>
#include <imgui.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "app/gui/OffscreenRenderer.h"
#include "tests/gui/DrivenWorkspace.h"
#include "tests/support/RunPython.h"
#include "tests/support/TestPaths.h"
#include "ui/Theme.h"

namespace fuselab {
namespace {

constexpr double kLeadNs = 50e6;  // derive_prerecording_run.py's default --lead-ms

class PreRecordingWindow : public test::DrivenWorkspace {
 protected:
  void SetUp() override {
    dir_ = test::scratchDir("PreRecordingWindow-" + std::to_string(::getpid()));
    const auto run = test::dataDir("nccl-2gpu-torch") / "run";
    const test::PythonResult derive =
        test::runPython("tests/hta/derive_prerecording_run.py", {run.string(), dir_.string(), "--rank", "1"}, true);
    ASSERT_EQ(derive.exit_code, 0) << derive.output;
    start(dir_.string());
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_TRUE(ws_->run());
  }
  void TearDown() override {
    DrivenWorkspace::TearDown();
    std::filesystem::remove_all(dir_);
  }
  // Rank 1's earliest GPU op in the merged trace: the moved kernel.
  EventRef movedKernel() const {
    const Trace& t = *ws_->trace();
    std::optional<EventRef> first;
    for (uint32_t ti = 0; ti < t.tracks.size(); ++ti)
      for (uint32_t i = 0; i < t.tracks[ti].size(); ++i)
        if (t.tracks[ti].rank == 1 && isGpuWork(t.tracks[ti].category[i]) &&
            (!first || t.tracks[ti].start_ns[i] < t.tracks[first->track].start_ns[first->index]))
          first = EventRef{ti, i};
    EXPECT_TRUE(first);
    return first.value_or(EventRef{});
  }
  double startOf(EventRef e) const { return double(ws_->trace()->tracks[e.track].start_ns[e.index]); }

  std::filesystem::path dir_;
};

TEST_F(PreRecordingWindow, FitAllShowsTheRecordedStepsNotTheTimeBefore) {
  const ui::TimelineView& tl = ws_->timeline();
  const EventRef kernel = movedKernel();
  ASSERT_TRUE(ws_->trace()->name(kernel).starts_with("ncclDevKernel_AllReduce"));
  const auto& steps = ws_->analysis()->steps;
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_GT(steps.front().start_ns - startOf(kernel), 0.9 * kLeadNs) << "the kernel starts before the steps";
  const double whole = double(ws_->trace()->endNs() - ws_->trace()->beginNs());
  EXPECT_GT(tl.axis().start_ns, startOf(kernel) + 0.9 * kLeadNs);
  EXPECT_LE(tl.axis().start_ns, double(steps.front().start_ns));
  EXPECT_GE(tl.axis().endNs(), double(steps.back().end_ns));
  EXPECT_LT(tl.axis().endNs() - tl.axis().start_ns, whole / 2);
  for (const StepStats& s : steps) EXPECT_LT(s.wall_ns, int64_t(10e6)) << s.name << ": a step as recorded";
  EXPECT_TRUE(tl.stepCenterOf(0));
}

TEST_F(PreRecordingWindow, TheKernelIsStillDrawnDimmedWhereTheViewGoes) {
  ui::TimelineView& tl = ws_->timeline();
  const EventRef kernel = movedKernel();
  // Rank 1's lanes on top, 5 ms before the kernel to 35 ms into it: before
  // the recording, where nothing else was drawn.
  tl.toggleRank(0);
  tl.showRange(startOf(kernel) - 5e6, startOf(kernel) + 35e6);
  OffscreenFrame f;
  f.width = 1400;
  f.height = 800;
  f.area = ScreenshotArea::Timeline;
  const RgbaImage img = renderOffscreen(*ws_, f);
  const auto centre = tl.screenCenterOf(kernel);
  ASSERT_TRUE(centre) << "laid out in view";
  const ui::Theme th = ui::makeTheme(ui::ThemeKind::Dark);
  const ImU32 plain = ui::eventColor(th, Category::Kernel, ws_->trace()->name(kernel));
  auto pixel = [&](double ns) {
    const int x = int(tl.axis().nsToX(ns) - tl.lastRectMin().x), y = int(centre->y - tl.lastRectMin().y);
    const uint8_t* p = &img.pixels[4 * (size_t(y) * size_t(img.width) + size_t(x))];
    return IM_COL32(p[0], p[1], p[2], 255);
  };
  const ImU32 background = pixel(startOf(kernel) - 3e6);
  // 22-32 ms into the kernel: right of its name.
  int drawn = 0, plain_fill = 0, samples = 0;
  for (double ns = startOf(kernel) + 22e6; ns < startOf(kernel) + 32e6; ns += 0.05e6, ++samples) {
    drawn += pixel(ns) != background;
    plain_fill += pixel(ns) == (plain | IM_COL32_A_MASK);
  }
  EXPECT_GT(drawn, samples * 9 / 10) << "the kernel is drawn";
  EXPECT_EQ(plain_fill, 0) << "dimmed and hatched, not in its plain colour";
}

}  // namespace
}  // namespace fuselab
