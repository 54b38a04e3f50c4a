#include "ui/layout/TimeRuler.h"

#include <gtest/gtest.h>

namespace fuselab::ui {
namespace {

TEST(TimeRuler, NiceStepsFollowOneTwoFive) {
  EXPECT_DOUBLE_EQ(niceStepNs(1), 1);
  EXPECT_DOUBLE_EQ(niceStepNs(1.1), 2);
  EXPECT_DOUBLE_EQ(niceStepNs(3), 5);
  EXPECT_DOUBLE_EQ(niceStepNs(7), 10);
  EXPECT_DOUBLE_EQ(niceStepNs(1000), 1000);
  EXPECT_DOUBLE_EQ(niceStepNs(1001), 2000);
  EXPECT_DOUBLE_EQ(niceStepNs(4.2e6), 5e6);
}

TEST(TimeRuler, OffsetLabelsCarryUnits) {
  EXPECT_EQ(formatOffset(500, 100, 900), "500 ns");
  EXPECT_EQ(formatOffset(2000, 1000, 5000), "2 us");
  EXPECT_EQ(formatOffset(1500, 500, 5000), "1.5 us");
  EXPECT_EQ(formatOffset(1.5e6, 5e5, 3e6), "1.5 ms");
  EXPECT_EQ(formatOffset(2e9, 1e9, 5e9), "2 s");
  // Deep zoom far from the origin: the unit suits the offset, the decimals the step.
  EXPECT_EQ(formatOffset(1'500'010, 10, 1'500'100), "1.50001 ms");
  EXPECT_EQ(formatOffset(0, 200, 1e6), "0.0000 ms");
}

TEST(TimeRuler, MajorTicksAreSpacedAndLabelled) {
  TimeAxis axis;
  axis.origin_px = 50;
  axis.width_px = 1000;
  axis.fit(1'000'000, 1'000'000 + 2'000'000);  // 2 ms across 1000 px: 2 us per px
  Ruler r = rulerTicks(axis, 1'000'000, 90);
  // 90 px * 2000 ns = 180 us -> 200 us steps.
  EXPECT_DOUBLE_EQ(r.major_step_ns, 200'000);
  int majors = 0;
  float last_major_x = -1e9f;
  for (const RulerTick& t : r.ticks) {
    EXPECT_GE(t.x, axis.origin_px - 0.01f);
    EXPECT_LE(t.x, axis.origin_px + axis.width_px + 0.01f);
    if (!t.major) {
      EXPECT_TRUE(t.label.empty());
      continue;
    }
    ++majors;
    EXPECT_GE(t.x - last_major_x, 90.0f - 0.01f);
    last_major_x = t.x;
    EXPECT_FALSE(t.label.empty());
    EXPECT_NE(t.label.find(" ms"), std::string::npos) << t.label;
  }
  EXPECT_EQ(majors, 11);  // 0, 0.2, ..., 2.0 ms
  EXPECT_EQ(r.ticks.front().label, "0.0 ms");
  EXPECT_EQ(r.ticks.back().label, "2.0 ms");
  EXPECT_GT(r.ticks.size(), 11u);  // minor ticks between
}

TEST(TimeRuler, NanosecondZoomUsesNanoseconds) {
  TimeAxis axis;
  axis.width_px = 800;
  axis.fit(0, 400);  // 0.5 ns per px
  Ruler r = rulerTicks(axis, 0, 80);
  EXPECT_DOUBLE_EQ(r.major_step_ns, 50);
  EXPECT_EQ(r.ticks.front().label, "0 ns");
  bool saw = false;
  for (const auto& t : r.ticks) saw |= t.label == "350 ns";
  EXPECT_TRUE(saw);
}

}  // namespace
}  // namespace fuselab::ui
