#include "ui/layout/GapGeometry.h"

#include <gtest/gtest.h>

#include "tests/ui/UiTestTraces.h"

namespace fuselab::ui {
namespace {

using test::addEvent;

GpuGap gap(uint32_t track, int64_t start, int64_t end, GapCause cause, bool sync = false) {
  GpuGap g;
  g.track = track;
  g.start_ns = start;
  g.end_ns = end;
  g.cause = cause;
  g.covered_by_sync = sync;
  return g;
}

struct Lanes {
  Trace trace;
  LaneLayout layout;
  uint32_t s7 = 0, s13 = 0;
  Lanes() {
    uint32_t cpu = trace.trackFor("1", "1");
    s7 = trace.trackFor("0", "7");
    s13 = trace.trackFor("0", "13");
    addEvent(trace, cpu, "op", 0, 10, Category::CpuOp);
    addEvent(trace, s7, "k", 0, 10, Category::Kernel);
    addEvent(trace, s13, "k", 0, 10, Category::Kernel);
    trace.finalize();
    layout = layoutLanes(trace);
  }
};

TimeAxis axis(double begin, double end, float width) {
  TimeAxis a;
  a.origin_px = 100;
  a.width_px = width;
  a.fit(begin, end);
  return a;
}

TEST(GapGeometry, WideGapsBecomeRectsOnTheirLane) {
  Lanes l;
  std::vector<GpuGap> gaps = {gap(l.s7, 100, 300, GapCause::HostWait),
                              gap(l.s7, 500, 520, GapCause::KernelWait, true),
                              gap(l.s13, 200, 900, GapCause::Other)};
  GapIndex index(gaps);
  std::vector<GapRect> rects;
  gapRects(gaps, index, l.layout, axis(0, 1000, 1000), rects);
  ASSERT_EQ(rects.size(), 3u);
  const Lane* lane7 = l.layout.laneOfTrack(l.s7);
  const Lane* lane13 = l.layout.laneOfTrack(l.s13);
  EXPECT_FLOAT_EQ(rects[0].x0, 200);
  EXPECT_FLOAT_EQ(rects[0].x1, 400);
  EXPECT_FLOAT_EQ(rects[0].y0, lane7->top);
  EXPECT_FLOAT_EQ(rects[0].y1, lane7->top + lane7->height);
  EXPECT_EQ(rects[0].cause, GapCause::HostWait);
  EXPECT_EQ(rects[0].gap, 0u);
  EXPECT_FLOAT_EQ(rects[0].coverage, 1);
  EXPECT_TRUE(rects[1].covered_by_sync);
  EXPECT_EQ(rects[1].cause, GapCause::KernelWait);
  EXPECT_FLOAT_EQ(rects[2].y0, lane13->top);
  EXPECT_EQ(rects[2].cause, GapCause::Other);
}

TEST(GapGeometry, OneTracksRectsAreItsShareOfAllRects) {
  Lanes l;
  std::vector<GpuGap> gaps = {gap(l.s7, 100, 300, GapCause::HostWait), gap(l.s7, 500, 501, GapCause::KernelWait),
                              gap(l.s13, 200, 900, GapCause::Other)};
  GapIndex index(gaps);
  const TimeAxis a = axis(0, 1000, 1000);
  std::vector<GapRect> all, s7, s13;
  gapRects(gaps, index, l.layout, a, all);
  ASSERT_EQ(index.tracks().size(), 2u);
  gapRectsOfTrack(gaps, index, index.tracks()[0], *l.layout.laneOfTrack(index.tracks()[0].track), a, s7);
  gapRectsOfTrack(gaps, index, index.tracks()[1], *l.layout.laneOfTrack(index.tracks()[1].track), a, s13);
  ASSERT_EQ(all.size(), s7.size() + s13.size());
  ASSERT_EQ(s7.size(), 2u);
  for (size_t i = 0; i < all.size(); ++i) {
    const GapRect& r = i < s7.size() ? s7[i] : s13[i - s7.size()];
    EXPECT_EQ(all[i].gap, r.gap);
    EXPECT_FLOAT_EQ(all[i].x0, r.x0);
    EXPECT_FLOAT_EQ(all[i].y0, r.y0);
    EXPECT_FLOAT_EQ(all[i].coverage, r.coverage);
  }
}

TEST(GapGeometry, OffscreenGapsAreSkippedAndEdgesClipped) {
  Lanes l;
  std::vector<GpuGap> gaps = {gap(l.s7, 0, 50, GapCause::HostWait), gap(l.s7, 150, 5000, GapCause::Other),
                              gap(l.s7, 6000, 7000, GapCause::HostWait)};
  GapIndex index(gaps);
  std::vector<GapRect> rects;
  gapRects(gaps, index, l.layout, axis(100, 1100, 1000), rects);
  ASSERT_EQ(rects.size(), 1u);
  EXPECT_EQ(rects[0].gap, 1u);
  EXPECT_FLOAT_EQ(rects[0].x0, 150);
  EXPECT_FLOAT_EQ(rects[0].x1, 1101);  // clipped one pixel past the right edge
}

TEST(GapGeometry, IdleTimeInRangeMatchesBruteForce) {
  Lanes l;
  std::vector<GpuGap> gaps;
  for (int i = 0; i < 300; ++i)
    gaps.push_back(gap(l.s7, i * 100, i * 100 + 10 + (i * 37) % 80, static_cast<GapCause>(i % 3)));
  GapIndex index(gaps);
  for (auto [a, b] : {std::pair<int64_t, int64_t>{0, 30000}, {1234, 5678}, {50, 60}, {29990, 40000}, {17, 17}}) {
    int64_t got[3];
    index.idleIn(gaps, 0, static_cast<uint32_t>(gaps.size()), a, b, got);
    int64_t want[3] = {0, 0, 0};
    for (const auto& g : gaps) {
      int64_t lo = std::max(a, g.start_ns), hi = std::min(b, g.end_ns);
      if (hi > lo) want[static_cast<int>(g.cause)] += hi - lo;
    }
    for (int c = 0; c < 3; ++c) EXPECT_EQ(got[c], want[c]) << "range " << a << ".." << b << " cause " << c;
  }
}

TEST(GapGeometry, ManyNarrowGapsAreSummarisedPerPixelColumn) {
  Lanes l;
  // 1M gaps of 3 ns every 5 ns (60% idle) over 5 ms: far below a pixel each.
  std::vector<GpuGap> gaps;
  gaps.reserve(1'000'000);
  for (int64_t i = 0; i < 1'000'000; ++i) gaps.push_back(gap(l.s7, i * 5 + 2, i * 5 + 5, GapCause::HostWait));
  GapIndex index(gaps);
  std::vector<GapRect> rects;
  const float width = 1000;
  gapRects(gaps, index, l.layout, axis(0, 5'000'000, width), rects);
  EXPECT_LE(rects.size(), static_cast<size_t>(width) + 2);
  EXPECT_GE(rects.size(), static_cast<size_t>(width) - 2);
  uint64_t covered = 0;
  for (const auto& r : rects) {
    EXPECT_EQ(r.cause, GapCause::HostWait);
    EXPECT_NEAR(r.coverage, 0.6f, 0.01f);
    EXPECT_FLOAT_EQ(r.x1 - r.x0, 1.0f);
    covered += r.count;
  }
  EXPECT_GE(covered, 999'000u);
}

TEST(GapGeometry, DominantCauseWinsInAColumn) {
  Lanes l;
  // In one 100 ns column: 60 ns host wait, 10 ns kernel wait.
  std::vector<GpuGap> gaps = {gap(l.s7, 1000, 1010, GapCause::KernelWait), gap(l.s7, 1020, 1080, GapCause::HostWait)};
  GapIndex index(gaps);
  std::vector<GapRect> rects;
  gapRects(gaps, index, l.layout, axis(0, 100'000, 1000), rects);
  ASSERT_EQ(rects.size(), 1u);
  EXPECT_EQ(rects[0].cause, GapCause::HostWait);
  EXPECT_EQ(rects[0].count, 2u);
  EXPECT_NEAR(rects[0].coverage, 0.7f, 1e-4f);
}

}  // namespace
}  // namespace fuselab::ui
