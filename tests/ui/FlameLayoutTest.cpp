// The flame graph's rectangles: widths by the metric, children side by side
// under their parent, zoom keeps the callers full width, slivers left out.
#include <gtest/gtest.h>

#include "profiling/trace/ChromeTraceImport.h"
#include "ui/layout/FlameLayout.h"

namespace fuselab::ui {
namespace {

Trace nested() {
  return importChromeTraceFromBuffer(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "outer", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 60},
    {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 70, "dur": 20},
    {"ph": "X", "cat": "cpu_op", "name": "tiny", "pid": 1, "tid": 1, "ts": 95, "dur": 0.01}]})",
                                     "nested");
}

const FlameRect* named(const Trace& t, const FlameGraph& g, const std::vector<FlameRect>& rects, std::string_view n) {
  for (const FlameRect& r : rects)
    if (frameLabel(t, g.frames[r.frame]) == n) return &r;
  return nullptr;
}

TEST(FlameLayout, WidthsFollowTheMetric) {
  const Trace t = nested();
  const FlameGraph g = buildFlameGraph(t, {t.beginNs(), t.endNs(), {}});
  const auto rects = layoutFlame(g, FlameMetric::Cpu, 0, 1000);
  const FlameRect* outer = named(t, g, rects, "outer");
  const FlameRect* a = named(t, g, rects, "a");
  const FlameRect* b = named(t, g, rects, "b");
  ASSERT_TRUE(outer && a && b);
  EXPECT_EQ(outer->row, 2);  // all, thread, outer
  EXPECT_FLOAT_EQ(outer->x1 - outer->x0, 1000);
  EXPECT_EQ(a->row, 3);
  EXPECT_NEAR(a->x1 - a->x0, 600, 0.01);
  EXPECT_NEAR(b->x0, a->x1, 0.01);  // side by side, in order of first occurrence
  EXPECT_NEAR(b->x1 - b->x0, 200, 0.01);
  EXPECT_EQ(named(t, g, rects, "tiny"), nullptr);  // 0.1 px: left out
  EXPECT_EQ(flameRectAt(rects, 650, 3), b);
  EXPECT_EQ(flameRectAt(rects, 650, 9), nullptr);
  EXPECT_TRUE(layoutFlame(g, FlameMetric::Gpu, 0, 1000).empty());  // no GPU time
}

TEST(FlameLayout, ZoomFillsTheWidthAndKeepsTheCallers) {
  const Trace t = nested();
  const FlameGraph g = buildFlameGraph(t, {t.beginNs(), t.endNs(), {}});
  const auto top = layoutFlame(g, FlameMetric::Cpu, 0, 1000);
  const uint32_t b_frame = named(t, g, top, "b")->frame;
  const auto rects = layoutFlame(g, FlameMetric::Cpu, b_frame, 500);
  ASSERT_EQ(rects.size(), 4u);  // all, thread, outer, b
  for (const FlameRect& r : rects) EXPECT_FLOAT_EQ(r.x1 - r.x0, 500);
  EXPECT_EQ(rects.back().frame, b_frame);
  EXPECT_EQ(named(t, g, rects, "a"), nullptr);
}

}  // namespace
}  // namespace fuselab::ui
