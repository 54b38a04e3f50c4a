#include "ui/layout/TimeAxis.h"

#include <gtest/gtest.h>

namespace fuselab::ui {
namespace {

TEST(TimeAxis, FitMapsRangeOntoWidth) {
  TimeAxis a;
  a.origin_px = 100;
  a.width_px = 1000;
  a.fit(5000, 15000);
  EXPECT_DOUBLE_EQ(a.ns_per_px, 10.0);
  EXPECT_FLOAT_EQ(a.nsToX(5000), 100.0f);
  EXPECT_FLOAT_EQ(a.nsToX(15000), 1100.0f);
  EXPECT_DOUBLE_EQ(a.xToNs(600), 10000.0);
}

TEST(TimeAxis, ZoomKeepsTimeUnderCursorFixed) {
  TimeAxis a;
  a.width_px = 800;
  a.fit(0, 8000);
  double before = a.xToNs(200);
  a.zoomAround(200, 4.0, 1e12);
  EXPECT_NEAR(a.xToNs(200), before, 1e-9);
  EXPECT_DOUBLE_EQ(a.ns_per_px, 2.5);
}

TEST(TimeAxis, ZoomIsClamped) {
  TimeAxis a;
  a.width_px = 100;
  a.fit(0, 100);
  a.zoomAround(0, 1e9, 1e12);
  EXPECT_DOUBLE_EQ(a.ns_per_px, 0.01);
  a.zoomAround(0, 1e-9, 50.0);
  EXPECT_DOUBLE_EQ(a.ns_per_px, 50.0);
}

TEST(TimeAxis, PanFollowsPointer) {
  TimeAxis a;
  a.width_px = 100;
  a.fit(1000, 2000);
  a.panPixels(10);  // drag right: earlier time comes into view
  EXPECT_DOUBLE_EQ(a.start_ns, 900.0);
}

TEST(TimeAxis, FitWithMarginLeavesRoomOnBothSides) {
  TimeAxis a;
  a.origin_px = 0;
  a.width_px = 1200;
  a.fitWithMargin(1000, 2000, 0.1);
  EXPECT_DOUBLE_EQ(a.start_ns, 900.0);
  EXPECT_DOUBLE_EQ(a.endNs(), 2100.0);
  EXPECT_FLOAT_EQ(a.nsToX(1000), 100.0f);
}

TEST(TimeAxis, RepeatedZoomAroundAPointIsReversible) {
  TimeAxis a;
  a.origin_px = 40;
  a.width_px = 1000;
  a.fit(0, 1e6);
  TimeAxis before = a;
  for (int i = 0; i < 10; ++i) a.zoomAround(700, 1.25, 1e12);
  for (int i = 0; i < 10; ++i) a.zoomAround(700, 1 / 1.25, 1e12);
  EXPECT_NEAR(a.start_ns, before.start_ns, 1e-6);
  EXPECT_NEAR(a.ns_per_px, before.ns_per_px, 1e-9);
}

}  // namespace
}  // namespace fuselab::ui
