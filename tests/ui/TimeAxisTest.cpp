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

}  // namespace
}  // namespace fuselab::ui
