#include "ui/layout/EventFolding.h"

#include <gtest/gtest.h>

#include "tests/ui/UiTestTraces.h"

namespace fuselab::ui {
namespace {

using test::addEvent;

// One GPU stream with the given (start, dur) kernels.
Trace streamOf(const std::vector<std::pair<int64_t, int64_t>>& events) {
  Trace t;
  uint32_t s = t.trackFor("0", "7");
  for (auto [start, dur] : events) addEvent(t, s, "k", start, dur, Category::Kernel);
  t.finalize();
  return t;
}

TimeAxis axisOver(double begin, double end, float width = 1000) {
  TimeAxis a;
  a.origin_px = 0;
  a.width_px = width;
  a.fit(begin, end);
  return a;
}

std::vector<DrawRecord> fold(const Trace& t, const TimeAxis& axis, float min_px = 3) {
  DepthIndex index(t);
  LaneRecords lr;
  foldTrack(0, index.track(0), axis, FoldOptions{min_px}, lr);
  return lr.records;
}

TEST(EventFolding, WideEventsStayIndividual) {
  Trace t = streamOf({{0, 100}, {200, 100}, {400, 100}});
  auto recs = fold(t, axisOver(0, 1000));  // 1 ns per px: each is 100 px
  ASSERT_EQ(recs.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(recs[i].count, 1u);
    EXPECT_EQ(recs[i].first, i);
    EXPECT_FLOAT_EQ(recs[i].x0, 200.0f * i);
    EXPECT_FLOAT_EQ(recs[i].x1, 200.0f * i + 100);
  }
}

TEST(EventFolding, RunOfNarrowEventsFoldsWithCount) {
  // 10 ns per px. Ten 5 ns kernels 10 ns apart (1 px each, 0.5 px gaps) fold;
  // the wide kernel after them stays on its own.
  std::vector<std::pair<int64_t, int64_t>> ev;
  for (int i = 0; i < 10; ++i) ev.push_back({1000 + i * 10, 5});
  ev.push_back({1100, 500});
  Trace t = streamOf(ev);
  auto recs = fold(t, axisOver(0, 10000));
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].count, 10u);
  EXPECT_TRUE(recs[0].folded());
  EXPECT_EQ(recs[0].first, 0u);
  EXPECT_EQ(recs[0].last, 9u);
  EXPECT_FLOAT_EQ(recs[0].x0, 100.0f);
  EXPECT_FLOAT_EQ(recs[0].x1, 109.5f);
  EXPECT_EQ(recs[1].count, 1u);
  EXPECT_EQ(recs[1].first, 10u);
}

TEST(EventFolding, NarrowEventsFarApartAreNotMerged) {
  Trace t = streamOf({{1000, 5}, {5000, 5}});
  auto recs = fold(t, axisOver(0, 10000));  // 400 px apart
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].count, 1u);
  EXPECT_EQ(recs[1].count, 1u);
}

TEST(EventFolding, LongEventStartingBeforeTheViewIsDrawn) {
  // Many short events first, so a search on start alone would miss the long one.
  std::vector<std::pair<int64_t, int64_t>> ev;
  for (int i = 0; i < 100; ++i) ev.push_back({i * 10, 5});
  ev.push_back({2000, 1'000'000});
  Trace t = streamOf(ev);
  auto recs = fold(t, axisOver(500'000, 501'000));
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].first, 100u);
  EXPECT_FLOAT_EQ(recs[0].x0, -16.0f);  // clipped just outside the view
  EXPECT_FLOAT_EQ(recs[0].x1, 1016.0f);
}

TEST(EventFolding, OnlyVisibleEventsAreEmitted) {
  Trace t = streamOf({{0, 100}, {1000, 100}, {2000, 100}, {3000, 100}});
  auto recs = fold(t, axisOver(900, 2500));
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].first, 1u);
  EXPECT_EQ(recs[1].first, 2u);
}

TEST(EventFolding, RecordsCoverEveryVisibleEventExactlyOnce) {
  // Irregular spacing: a brute-force count of visible events must equal the
  // sum of the record counts, and records must be disjoint and ordered.
  std::vector<std::pair<int64_t, int64_t>> ev;
  int64_t at = 0;
  for (int i = 0; i < 5000; ++i) {
    int64_t dur = (i % 97 == 0) ? 4000 : 1 + (i * 7) % 13;
    ev.push_back({at, dur});
    at += dur + (i % 5 == 0 ? 300 : (i * 3) % 11);
  }
  Trace t = streamOf(ev);
  const double begin = 20'000, end = 180'000;
  auto recs = fold(t, axisOver(begin, end, 800));
  uint64_t visible = 0;
  for (auto [s, d] : ev)
    if (s + d > begin && s <= end) ++visible;
  uint64_t counted = 0;
  for (size_t i = 0; i < recs.size(); ++i) {
    counted += recs[i].count;
    EXPECT_EQ(recs[i].last - recs[i].first + 1, recs[i].count);
    if (i > 0) {
      EXPECT_EQ(recs[i].first, recs[i - 1].last + 1);
      EXPECT_GE(recs[i].x0, recs[i - 1].x1);
    }
  }
  EXPECT_EQ(counted, visible);
  EXPECT_LT(recs.size(), visible);  // something folded
}

TEST(EventFolding, MillionTinyEventsFoldIntoFewRecords) {
  Trace t = test::manyTinyKernels(1'000'000);  // 2 ns kernels every 5 ns
  t.finalize();
  DepthIndex index(t);
  TimeAxis axis = axisOver(static_cast<double>(t.beginNs()), static_cast<double>(t.endNs()), 1600);
  uint32_t gpu = 1;
  ASSERT_EQ(t.tracks[gpu].kind, TrackKind::Gpu);
  LaneRecords lr;
  foldTrack(gpu, index.track(gpu), axis, FoldOptions{3}, lr);
  ASSERT_FALSE(lr.records.empty());
  EXPECT_LE(lr.records.size(), 10u);
  uint64_t total = 0;
  for (const auto& r : lr.records) total += r.count;
  EXPECT_EQ(total, 1'000'000u);

  // The CPU lane (step + launches) folds too.
  LaneRecords cpu;
  foldTrack(0, index.track(0), axis, FoldOptions{3}, cpu);
  EXPECT_LE(cpu.records.size(), 20u);
  ASSERT_EQ(cpu.depth_begin.size(), 3u);  // depths 0 and 1, plus the end marker
}

TEST(EventFolding, ZoomedIntoTenMicrosecondsShowsSingleEvents) {
  Trace t = test::manyTinyKernels(1'000'000, 2, 2000);  // a kernel every 2 us
  t.finalize();
  DepthIndex index(t);
  double mid = 1'000'000 + 500'000.0 * 2000;
  TimeAxis axis = axisOver(mid, mid + 10'000, 1000);  // 10 ns per px: 2 ns kernels are narrow but isolated
  LaneRecords lr;
  foldTrack(1, index.track(1), axis, FoldOptions{3}, lr);
  ASSERT_EQ(lr.records.size(), 5u);
  for (const auto& r : lr.records) EXPECT_EQ(r.count, 1u);
}

}  // namespace
}  // namespace fuselab::ui
