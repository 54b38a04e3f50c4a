#include "ui/layout/HitTest.h"

#include <gtest/gtest.h>

#include "tests/ui/UiTestTraces.h"

namespace fuselab::ui {
namespace {

using test::addEvent;

struct Scene {
  Trace trace;
  LaneLayout layout;
  DepthIndex index;
  TimeAxis axis;
  std::vector<LaneRecords> lanes;

  void build() {
    trace.finalize();
    LaneLayoutOptions o;
    o.row_height = 10;
    o.lane_padding = 2;
    o.header_height = 20;
    layout = layoutLanes(trace, o);
    index = DepthIndex(trace);
    lanes.resize(layout.lanes.size());
    for (size_t i = 0; i < layout.lanes.size(); ++i)
      foldTrack(layout.lanes[i].track, index.track(layout.lanes[i].track), axis, FoldOptions{3}, lanes[i]);
  }
};

Scene scene() {
  Scene s;
  uint32_t cpu = s.trace.trackFor("1", "1");
  uint32_t gpu = s.trace.trackFor("0", "7");
  addEvent(s.trace, cpu, "aten::linear", 100, 400, Category::CpuOp);        // depth 0: x 100..500
  addEvent(s.trace, cpu, "cudaLaunchKernel", 200, 50, Category::CudaRuntime, 5);  // depth 1: x 200..250
  addEvent(s.trace, gpu, "gemm", 300, 1, Category::Kernel, 5);                // 1 px wide
  for (int i = 0; i < 20; ++i) addEvent(s.trace, gpu, "tiny", 600 + i * 2, 1, Category::Kernel);  // folds
  s.axis.origin_px = 0;
  s.axis.width_px = 1000;
  s.axis.fit(0, 1000);
  s.build();
  return s;
}

float rowY(const Scene& s, size_t lane, int depth) { return s.layout.rowCenter(s.layout.lanes[lane], depth); }

TEST(HitTest, FindsTheEventUnderThePointer) {
  Scene s = scene();
  auto hit = hitTest(s.layout, s.lanes, 300, rowY(s, 0, 0));
  ASSERT_TRUE(hit);
  EXPECT_EQ(s.trace.name(hit->event()), "aten::linear");
  hit = hitTest(s.layout, s.lanes, 220, rowY(s, 0, 1));
  ASSERT_TRUE(hit);
  EXPECT_EQ(s.trace.name(hit->event()), "cudaLaunchKernel");
  EXPECT_FALSE(hit->record.folded());
}

TEST(HitTest, EmptySpaceAndHeadersHitNothing) {
  Scene s = scene();
  EXPECT_FALSE(hitTest(s.layout, s.lanes, 50, rowY(s, 0, 0)));   // before aten::linear
  EXPECT_FALSE(hitTest(s.layout, s.lanes, 300, rowY(s, 0, 1)));  // row 1, after the launch
  EXPECT_FALSE(hitTest(s.layout, s.lanes, 300, 5));               // CPU header
  EXPECT_FALSE(hitTest(s.layout, s.lanes, 300, s.layout.total_height + 5));
}

TEST(HitTest, ThinEventsCanBePickedWithinTolerance) {
  Scene s = scene();
  auto hit = hitTest(s.layout, s.lanes, 302.5f, rowY(s, 1, 0));
  ASSERT_TRUE(hit);
  EXPECT_EQ(s.trace.name(hit->event()), "gemm");
  EXPECT_FALSE(hitTest(s.layout, s.lanes, 310, rowY(s, 1, 0)));
}

TEST(HitTest, FoldedBlockReportsItsRun) {
  Scene s = scene();
  auto hit = hitTest(s.layout, s.lanes, 620, rowY(s, 1, 0));
  ASSERT_TRUE(hit);
  EXPECT_TRUE(hit->record.folded());
  EXPECT_EQ(hit->record.count, 20u);
  EXPECT_EQ(s.trace.name(hit->event()), "tiny");
}

TEST(HitTest, OneLaneAnswersOnlyInsideItsBand) {
  Scene s = scene();
  const Lane& cpu = s.layout.lanes[0];
  const Lane& gpu = s.layout.lanes[1];
  auto hit = hitTestLane(s.layout, cpu, s.lanes[0], 220, rowY(s, 0, 1));
  ASSERT_TRUE(hit);
  EXPECT_EQ(s.trace.name(hit->event()), "cudaLaunchKernel");
  // The GPU lane's records at the CPU lane's height: not this lane's point.
  EXPECT_FALSE(hitTestLane(s.layout, gpu, s.lanes[1], 302.5f, rowY(s, 0, 0)));
  auto gemm = hitTestLane(s.layout, gpu, s.lanes[1], 302.5f, rowY(s, 1, 0));
  ASSERT_TRUE(gemm);
  EXPECT_EQ(s.trace.name(gemm->event()), "gemm");
}

}  // namespace
}  // namespace fuselab::ui
