#include "ui/layout/LaneLayout.h"

#include <gtest/gtest.h>

#include "tests/ui/UiTestTraces.h"

namespace fuselab::ui {
namespace {

using test::addEvent;

Trace twoThreadsTwoStreams() {
  Trace t;
  // Created in an order different from the expected lane order.
  uint32_t s13 = t.trackFor("0", "13");
  uint32_t worker = t.trackFor("644", "700");
  uint32_t s7 = t.trackFor("0", "7");
  uint32_t main = t.trackFor("644", "644");
  t.trackFor("3", "0");  // no events: no lane
  t.tracks[main].thread_name_id = t.strings.intern("thread 644 (python3)");
  addEvent(t, s13, "memcpy", 100, 50, Category::Memcpy);
  addEvent(t, worker, "autograd", 0, 10, Category::CpuOp);
  addEvent(t, s7, "k", 0, 10, Category::Kernel);
  addEvent(t, main, "ProfilerStep#1", 0, 1000, Category::UserAnnotation);
  addEvent(t, main, "aten::linear", 10, 500, Category::CpuOp);
  addEvent(t, main, "aten::addmm", 20, 100, Category::CpuOp);
  t.finalize();
  return t;
}

TEST(LaneLayout, CpuThreadsAboveGpuStreamsWithLabels) {
  Trace t = twoThreadsTwoStreams();
  LaneLayoutOptions o;
  o.row_height = 10;
  o.lane_padding = 2;
  o.header_height = 16;
  LaneLayout l = layoutLanes(t, o);
  ASSERT_EQ(l.lanes.size(), 4u);
  EXPECT_EQ(l.lanes[0].label, "thread 644 (python3)");
  EXPECT_EQ(l.lanes[1].label, "thread 700");
  EXPECT_EQ(l.lanes[2].label, "GPU 0 stream 7");
  EXPECT_EQ(l.lanes[3].label, "GPU 0 stream 13");
  EXPECT_EQ(l.lanes[0].group, LaneGroup::Cpu);
  EXPECT_EQ(l.lanes[2].group, LaneGroup::Gpu);

  ASSERT_EQ(l.headers.size(), 2u);
  EXPECT_EQ(l.headers[0].title, "CPU");
  EXPECT_EQ(l.headers[1].title, "GPU");
  // Main thread: three nested levels -> 3 rows.
  EXPECT_EQ(l.lanes[0].rows, 3);
  EXPECT_FLOAT_EQ(l.lanes[0].top, 16);
  EXPECT_FLOAT_EQ(l.lanes[0].height, 3 * 10 + 4);
  EXPECT_FLOAT_EQ(l.lanes[1].top, 16 + 34);
  EXPECT_FLOAT_EQ(l.headers[1].top, 16 + 34 + 14);
  EXPECT_FLOAT_EQ(l.lanes[2].top, 16 + 34 + 14 + 16);
  EXPECT_FLOAT_EQ(l.total_height, l.lanes[3].top + l.lanes[3].height);
  for (size_t i = 1; i < l.lanes.size(); ++i) EXPECT_GE(l.lanes[i].top, l.lanes[i - 1].top + l.lanes[i - 1].height);
}

TEST(LaneLayout, SubRowsGrowTheirLaneAndPushTheRestDown) {
  Trace t = twoThreadsTwoStreams();
  LaneLayoutOptions o;
  o.row_height = 10;
  o.lane_padding = 2;
  o.header_height = 16;
  const LaneLayout plain = layoutLanes(t, o);
  o.sub_rows.assign(t.tracks.size(), 0);
  o.sub_rows[plain.lanes[2].track] = 4;  // the first GPU stream: a kernel on four channels
  o.sub_row_height = 3;
  const LaneLayout l = layoutLanes(t, o);
  EXPECT_EQ(l.lanes[2].sub_rows, 4);
  EXPECT_FLOAT_EQ(l.lanes[2].height, plain.lanes[2].height + 4 * 3 + 2);
  EXPECT_FLOAT_EQ(l.lanes[2].subRowsTop(), l.lanes[2].top + l.lanes[2].height - 12);
  EXPECT_FLOAT_EQ(l.lanes[3].top, plain.lanes[3].top + 14);
  EXPECT_EQ(l.lanes[3].sub_rows, 0);
  EXPECT_FLOAT_EQ(l.total_height, plain.total_height + 14);
}

TEST(LaneLayout, PointsMapToLanesAndRows) {
  Trace t = twoThreadsTwoStreams();
  LaneLayoutOptions o;
  o.row_height = 10;
  o.lane_padding = 2;
  o.header_height = 16;
  LaneLayout l = layoutLanes(t, o);
  EXPECT_EQ(l.laneAt(5), nullptr);  // CPU header
  const Lane* lane = l.laneAt(16 + 2 + 15);  // second row of the main thread
  ASSERT_NE(lane, nullptr);
  EXPECT_EQ(lane->label, "thread 644 (python3)");
  EXPECT_EQ(l.rowAt(*lane, 16 + 2 + 15), 1);
  EXPECT_EQ(l.rowAt(*lane, 16 + 1), -1);  // padding
  EXPECT_FLOAT_EQ(l.rowCenter(*lane, 2), 16 + 2 + 25);
  EXPECT_EQ(l.laneAt(l.total_height + 1), nullptr);
  EXPECT_EQ(l.laneOfTrack(l.lanes[3].track), &l.lanes[3]);
}

TEST(LaneLayout, TracksOfOtherKindsComeLastWithReadableLabels) {
  Trace t = twoThreadsTwoStreams();
  uint32_t spans = t.trackFor("\"Spans\"", "\"PyTorch Profiler\"");
  addEvent(t, spans, "PyTorch Profiler (0)", 0, 2000, Category::Other);
  t.finalize();
  LaneLayout l = layoutLanes(t);
  ASSERT_EQ(l.lanes.size(), 5u);
  EXPECT_EQ(l.lanes.back().group, LaneGroup::Other);
  EXPECT_EQ(l.lanes.back().label, "other: Spans / PyTorch Profiler");
  EXPECT_EQ(l.headers.back().title, "Other");
}

}  // namespace
}  // namespace fuselab::ui
