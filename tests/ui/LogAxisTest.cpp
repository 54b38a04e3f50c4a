// The sweep plot's logarithmic axis: mapping, nice bounds and ticks.
#include <gtest/gtest.h>

#include <cmath>

#include "ui/layout/LogAxis.h"

namespace fuselab::ui {
namespace {

TEST(LogAxis, FitsToNiceBoundsAndMapsDecadesEvenly) {
  const LogAxis a = LogAxis::fit(3, 700, 0, 300);
  EXPECT_DOUBLE_EQ(a.lo, 2);
  EXPECT_DOUBLE_EQ(a.hi, 1000);
  EXPECT_FLOAT_EQ(a.toPx(2), 0);
  EXPECT_FLOAT_EQ(a.toPx(1000), 300);
  // Equal ratios take equal pixels.
  EXPECT_NEAR(a.toPx(20) - a.toPx(2), a.toPx(200) - a.toPx(20), 1e-3);
  EXPECT_NEAR(a.fromPx(a.toPx(37)), 37, 37 * 1e-6);  // pixels are floats
  EXPECT_FLOAT_EQ(a.toPx(0), 0) << "non-positive values sit at the axis start";
}

TEST(LogAxis, YAxesGrowUpwards) {
  const LogAxis a = LogAxis::fit(1e3, 1e6, 500, 100);
  EXPECT_FLOAT_EQ(a.toPx(1e3), 500);
  EXPECT_FLOAT_EQ(a.toPx(1e6), 100);
  EXPECT_GT(a.toPx(1e4), a.toPx(1e5));
}

TEST(LogAxis, TicksAreDecadesOrOneTwoFive) {
  LogAxis wide = LogAxis::fit(1, 8192, 0, 100);
  EXPECT_EQ(wide.hi, 10000);
  EXPECT_EQ(wide.ticks(), (std::vector<double>{1, 10, 100, 1000, 10000}));
  LogAxis narrow = LogAxis::fit(10, 400, 0, 100);
  EXPECT_EQ(narrow.ticks(), (std::vector<double>{10, 20, 50, 100, 200, 500}));
  LogAxis single = LogAxis::fit(50, 50, 0, 100);
  EXPECT_LT(single.lo, 50);
  EXPECT_GT(single.hi, 50);
}

TEST(LogAxis, CountLabels) {
  EXPECT_EQ(formatCount(1), "1");
  EXPECT_EQ(formatCount(512), "512");
  EXPECT_EQ(formatCount(2000), "2k");
  EXPECT_EQ(formatCount(8192), "8.19k");
  EXPECT_EQ(formatCount(3e6), "3M");
}

}  // namespace
}  // namespace fuselab::ui
