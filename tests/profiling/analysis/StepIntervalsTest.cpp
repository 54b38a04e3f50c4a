// StepIntervals: the first interval (in start order) containing a time,
// checked by hand and against a linear scan on random overlapping intervals.
#include "profiling/analysis/common/StepIntervals.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace fuselab {
namespace {

using Spans = std::vector<std::pair<int64_t, int64_t>>;

std::optional<size_t> linearScan(const Spans& spans, int64_t time) {
  for (size_t j = 0; j < spans.size(); ++j)
    if (spans[j].first <= time && time <= spans[j].second) return j;
  return std::nullopt;
}

TEST(StepIntervals, EmptyContainsNothing) {
  const StepIntervals none({});
  EXPECT_TRUE(none.empty());
  EXPECT_FALSE(none.firstContaining(0));
}

TEST(StepIntervals, EndsAreInclusiveAndGapsBelongToNoStep) {
  const StepIntervals steps({{100, 200}, {300, 400}});
  EXPECT_FALSE(steps.firstContaining(99));
  EXPECT_EQ(steps.firstContaining(100), 0u);
  EXPECT_EQ(steps.firstContaining(200), 0u);
  EXPECT_FALSE(steps.firstContaining(250));
  EXPECT_EQ(steps.firstContaining(300), 1u);
  EXPECT_EQ(steps.firstContaining(400), 1u);
  EXPECT_FALSE(steps.firstContaining(401));
}

TEST(StepIntervals, OverlapsGiveTheFirstInStartOrder) {
  // 0: a long step; 1: nested in it; 2: starts inside 1 and outlives 0;
  // 3: after a gap.
  const StepIntervals steps({{0, 1000}, {100, 200}, {150, 1200}, {1500, 1600}});
  EXPECT_EQ(steps.firstContaining(150), 0u);
  EXPECT_EQ(steps.firstContaining(1000), 0u);
  EXPECT_EQ(steps.firstContaining(1001), 2u);  // 0 and 1 have ended
  EXPECT_EQ(steps.firstContaining(1200), 2u);
  EXPECT_FALSE(steps.firstContaining(1300));
  EXPECT_EQ(steps.firstContaining(1550), 3u);
}

TEST(StepIntervals, MatchesALinearScanOnRandomOverlappingSteps) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    const size_t n = rng() % 12;
    Spans spans;
    for (size_t j = 0; j < n; ++j) {
      const int64_t start = int64_t(rng() % 100);
      spans.emplace_back(start, start + int64_t(rng() % 40));
    }
    std::stable_sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const StepIntervals steps(spans);
    for (int64_t time = -2; time <= 145; ++time)
      ASSERT_EQ(steps.firstContaining(time), linearScan(spans, time)) << "round " << round << ", time " << time;
  }
}

}  // namespace
}  // namespace fuselab
