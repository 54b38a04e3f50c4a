// The timeline driven like a user would: mouse wheel, drag, click, keys fed
// to ImGui frame by frame (a hidden GL window provides the context).
#include <gtest/gtest.h>
#include <imgui.h>

#include <cmath>
#include <memory>

#include "tests/gui/DrivenWorkspace.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

class TimelineInteraction : public test::DrivenWorkspace {
 protected:
  void SetUp() override { start(test::fixture("mlp_eager.json.gz").string()); }

  EventRef firstNamed(std::string_view name) {
    const Trace& t = *ws_->trace();
    for (uint32_t ti = 0; ti < t.tracks.size(); ++ti)
      for (uint32_t i = 0; i < t.tracks[ti].size(); ++i)
        if (t.name({ti, i}) == name) return {ti, i};
    ADD_FAILURE() << "no " << name;
    return {};
  }
};

TEST_F(TimelineInteraction, WheelZoomsAroundThePointer) {
  ui::TimelineView& tl = ws_->timeline();
  auto target = tl.screenCenterOf(firstNamed("ProfilerStep#3"));
  ASSERT_TRUE(target);
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = *target;
  frames(1);
  const double before_scale = tl.axis().ns_per_px;
  const double under = tl.axis().xToNs(target->x);
  io.MouseWheel = 2;
  frames(1);
  EXPECT_NEAR(tl.axis().ns_per_px, before_scale / (1.25 * 1.25), before_scale * 1e-6);
  EXPECT_NEAR(tl.axis().xToNs(target->x), under, tl.axis().ns_per_px);
}

TEST_F(TimelineInteraction, DragPansTheView) {
  ui::TimelineView& tl = ws_->timeline();
  auto p = tl.screenCenterOf(firstNamed("ProfilerStep#3"));
  ASSERT_TRUE(p);
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = *p;
  frames(1);
  const double start = tl.axis().start_ns;
  io.MouseDown[0] = true;
  frames(1);
  for (int i = 0; i < 10; ++i) {
    io.MousePos.x += 20;
    frames(1);
  }
  io.MouseDown[0] = false;
  frames(1);
  // Content follows the pointer: 200 px to the right shows earlier time.
  EXPECT_NEAR(tl.axis().start_ns, start - 200 * tl.axis().ns_per_px, tl.axis().ns_per_px * 2);
  EXPECT_FALSE(tl.selected()) << "a drag is not a click";
}

TEST_F(TimelineInteraction, ClickSelectsAndShowsFlows) {
  ui::TimelineView& tl = ws_->timeline();
  EventRef linear = firstNamed("aten::linear");
  auto p = tl.screenCenterOf(linear);
  ASSERT_TRUE(p);
  click(*p);
  ASSERT_TRUE(tl.selected());
  EXPECT_EQ(*tl.selected(), linear);
  // A click on empty space (far left of the time area, before the trace) clears it.
  click(ImVec2(tl.axis().origin_px + 2, p->y));
  EXPECT_FALSE(tl.selected());
}

TEST_F(TimelineInteraction, KeysFitStepsAndAll) {
  ui::TimelineView& tl = ws_->timeline();
  auto p = tl.screenCenterOf(firstNamed("ProfilerStep#3"));
  ASSERT_TRUE(p);
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = *p;
  frames(1);
  const double all_width = tl.axis().endNs() - tl.axis().start_ns;
  io.KeysDown['2'] = true;
  frames(1);
  io.KeysDown['2'] = false;
  frames(2);
  const Trace& t = *ws_->trace();
  EventRef step = firstNamed("ProfilerStep#3");  // the second step in time
  double s = static_cast<double>(t.tracks[step.track].start_ns[step.index]);
  double d = static_cast<double>(t.tracks[step.track].dur_ns[step.index]);
  EXPECT_LT(tl.axis().start_ns, s);
  EXPECT_GT(tl.axis().endNs(), s + d);
  EXPECT_LT(tl.axis().endNs() - tl.axis().start_ns, d * 1.1);
  io.KeysDown['F'] = true;
  frames(1);
  io.KeysDown['F'] = false;
  frames(2);
  EXPECT_NEAR(tl.axis().endNs() - tl.axis().start_ns, all_width, all_width * 1e-6);
}

TEST_F(TimelineInteraction, AClickOnAStepInTheBandFitsIt) {
  ui::TimelineView& tl = ws_->timeline();
  const auto& steps = ws_->analysis()->steps;
  ASSERT_GE(steps.size(), 3u);
  auto p = tl.stepCenterOf(2);
  ASSERT_TRUE(p);
  click(*p);
  frames(2);
  const double s = static_cast<double>(steps[2].start_ns), e = static_cast<double>(steps[2].end_ns);
  EXPECT_LT(tl.axis().start_ns, s);
  EXPECT_GT(tl.axis().endNs(), e);
  EXPECT_LT(tl.axis().endNs() - tl.axis().start_ns, (e - s) * 1.1);
  EXPECT_FALSE(tl.selected()) << "a click on the band selects no event";
}

TEST_F(TimelineInteraction, TheCriticalPathFollowsTheStepInView) {
  ui::TimelineView& tl = ws_->timeline();
  ASSERT_TRUE(tl.criticalPath());
  ASSERT_EQ(tl.criticalPath()->steps.size(), 3u);
  tl.showCriticalPath(true);
  ASSERT_TRUE(tl.fitStep(2));
  frames(2);
  const StepPath* step = tl.criticalPathInView();
  ASSERT_TRUE(step);
  EXPECT_EQ(step->name, ws_->analysis()->steps[2].name);
  ASSERT_TRUE(tl.fitStep(0));
  frames(2);
  EXPECT_EQ(tl.criticalPathInView()->name, ws_->analysis()->steps[0].name);
}

}  // namespace
}  // namespace fuselab
