// The roofline plot's geometry: the roof, axes, dot sizes and hit tests.
#include <gtest/gtest.h>

#include <cmath>

#include "ui/layout/RooflinePlot.h"

namespace fuselab::ui {
namespace {

// 1000 TFLOP/s and 4000 GB/s: the ridge at 250 FLOP/byte.
RooflinePlot plotOf(const std::vector<RooflineDot>& dots) {
  return RooflinePlot::fit(dots, 1000, 4000, 0, 0, 800, 600);
}

TEST(RooflinePlot, RoofIsSlantedThenFlatWithTheRidgeAtPeakOverBandwidth) {
  const RooflinePlot p = plotOf({{1, 2, 1000}, {500, 600, 1000}});
  EXPECT_DOUBLE_EQ(p.ridgeIntensity(), 250);
  EXPECT_DOUBLE_EQ(p.attainableTflops(1), 4);    // 1 FLOP/byte x 4000 GB/s
  EXPECT_DOUBLE_EQ(p.attainableTflops(1000), 1000);
  const auto roof = p.roof();
  ASSERT_EQ(roof.size(), 3u);
  EXPECT_FLOAT_EQ(roof[0].x, 0);
  EXPECT_FLOAT_EQ(roof[2].x, 800);
  EXPECT_FLOAT_EQ(roof[1].x, p.x.toPx(250));
  EXPECT_FLOAT_EQ(roof[1].y, roof[2].y) << "flat right of the ridge";
  EXPECT_GT(roof[0].y, roof[1].y) << "rises (pixels go down) towards the ridge";
  // The left end sits on the bandwidth line: x.lo FLOP/byte x 4000 GB/s.
  EXPECT_FLOAT_EQ(roof[0].y, p.y.toPx(p.x.lo * 4.0));
}

TEST(RooflinePlot, AxesHoldEveryDrawableDotAndTheRidge) {
  const std::vector<RooflineDot> dots = {{0.3, 0.5, 10}, {2000, 700, 10}, {0, 0, 10}};
  const RooflinePlot p = plotOf(dots);
  EXPECT_LE(p.x.lo, 0.3);
  EXPECT_GE(p.x.hi, 2000);
  EXPECT_LE(p.y.lo, 0.5);
  EXPECT_GT(p.y.hi, 1000) << "headroom above the peak";
  EXPECT_FALSE(drawable(dots[2])) << "a memset has no FLOPs: not on log axes";
}

TEST(RooflinePlot, DotAreaGrowsWithTime) {
  EXPECT_FLOAT_EQ(dotRadius(100, 100, 2, 20), 20);
  EXPECT_FLOAT_EQ(dotRadius(25, 100, 2, 20), 10);  // a quarter of the time, a quarter of the area
  EXPECT_FLOAT_EQ(dotRadius(0.01, 100, 2, 20), 2);
  EXPECT_FLOAT_EQ(dotRadius(5, 0, 2, 20), 2);
}

TEST(RooflinePlot, HitTestPrefersTheSmallerDot) {
  const std::vector<RooflineDot> dots = {{10, 10, 100}, {10, 10, 1}, {1000, 900, 50}};
  const RooflinePlot p = plotOf(dots);
  const std::vector<float> radii = {20, 4, 10};
  const PlotPoint c = p.at(10, 10);
  EXPECT_EQ(hitDot(p, dots, radii, c.x, c.y), 1u);
  EXPECT_EQ(hitDot(p, dots, radii, c.x + 12, c.y), 0u);
  EXPECT_FALSE(hitDot(p, dots, radii, c.x + 30, c.y));
  const PlotPoint far = p.at(1000, 900);
  EXPECT_EQ(hitDot(p, dots, radii, far.x + 3, far.y - 3), 2u);
}

TEST(RooflinePlot, TrajectoryInterpolatesOnLogScales) {
  const std::vector<double> tokens = {64, 256, 1024};
  const std::vector<RooflineDot> dots = {{10, 1, 0}, {40, 100, 0}, {160, 400, 0}};
  auto mid = trajectoryAt(tokens, dots, 128);  // halfway in log(tokens) between 64 and 256
  ASSERT_TRUE(mid);
  EXPECT_NEAR(mid->intensity, 20, 1e-9);  // geometric mean of 10 and 40
  EXPECT_NEAR(mid->tflops, 10, 1e-9);     // of 1 and 100
  EXPECT_NEAR(trajectoryAt(tokens, dots, 1024)->tflops, 400, 1e-9);
  EXPECT_FALSE(trajectoryAt(tokens, dots, 2048));
  EXPECT_FALSE(trajectoryAt(tokens, {{10, 1, 0}, {0, 0, 0}, {160, 400, 0}}, 128));
}

}  // namespace
}  // namespace fuselab::ui
