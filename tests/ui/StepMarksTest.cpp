#include "ui/layout/StepMarks.h"

#include <gtest/gtest.h>

namespace fuselab::ui {
namespace {

std::vector<StepStats> evenSteps(size_t n, int64_t period, int64_t length) {
  std::vector<StepStats> steps(n);
  for (size_t i = 0; i < n; ++i) {
    steps[i].start_ns = int64_t(i) * period;
    steps[i].end_ns = steps[i].start_ns + length;
  }
  return steps;
}

TimeAxis axis(double begin, double end, float width) {
  TimeAxis a;
  a.origin_px = 100;
  a.width_px = width;
  a.fit(begin, end);
  return a;
}

TEST(StepMarks, WideStepsAreDrawnOneByOne) {
  auto steps = evenSteps(4, 100, 90);  // 90 px each on a 1 ns/px axis
  std::vector<StepMark> marks;
  stepMarks(steps, axis(0, 400, 400), 3.0f, marks);
  ASSERT_EQ(marks.size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(marks[i].first, i);
    EXPECT_FALSE(marks[i].folded());
    EXPECT_FLOAT_EQ(marks[i].x0, 100 + 100.0f * i);
    EXPECT_FLOAT_EQ(marks[i].x1, 190 + 100.0f * i);
  }
  std::vector<float> lines;
  stepLines(marks, axis(0, 400, 400), 2.0f, lines);
  EXPECT_EQ(lines.size(), 8u);  // start and end of each step
}

TEST(StepMarks, ManyStepsAtFitAllFoldToAFewMarksAndLines) {
  // 21,300 steps on 1,000 px: each is a fraction of a pixel.
  auto steps = evenSteps(21'300, 1'000, 900);
  TimeAxis a = axis(0, 21'300'000.0, 1000);
  std::vector<StepMark> marks;
  stepMarks(steps, a, 3.0f, marks);
  ASSERT_FALSE(marks.empty());
  EXPECT_LE(marks.size(), 400u);  // at most one per 3 px column, not one per step
  uint64_t covered = 0;
  for (size_t i = 0; i < marks.size(); ++i) {
    covered += marks[i].count;
    if (i > 0) EXPECT_EQ(marks[i].first, marks[i - 1].first + marks[i - 1].count);  // nothing skipped
  }
  EXPECT_EQ(covered, steps.size());
  std::vector<float> lines;
  stepLines(marks, a, 2.0f, lines);
  EXPECT_LE(lines.size(), 501u);  // never two lines closer than 2 px: no solid fill
  for (size_t i = 1; i < lines.size(); ++i) EXPECT_GE(lines[i] - lines[i - 1], 2.0f);
}

TEST(StepMarks, ContiguousNarrowStepsFoldIntoOneRun) {
  auto steps = evenSteps(1'000, 10, 10);  // no holes between them
  std::vector<StepMark> marks;
  stepMarks(steps, axis(0, 10'000, 1000), 3.0f, marks);  // 10 ns/px: each step is 1 px
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0].count, 1'000u);
  EXPECT_TRUE(marks[0].folded());
  EXPECT_FLOAT_EQ(marks[0].x0, 100);
  EXPECT_FLOAT_EQ(marks[0].x1, 1100);
}

TEST(StepMarks, AVisibleHoleEndsARun) {
  std::vector<StepStats> steps = evenSteps(3, 10, 10);  // [0,30) in 1 px steps
  StepStats far;
  far.start_ns = 500;
  far.end_ns = 505;
  steps.push_back(far);
  std::vector<StepMark> marks;
  stepMarks(steps, axis(0, 1000, 100), 3.0f, marks);  // 10 ns/px
  ASSERT_EQ(marks.size(), 2u);
  EXPECT_EQ(marks[0].count, 3u);
  EXPECT_EQ(marks[1].first, 3u);
  EXPECT_EQ(marks[1].count, 1u);
}

TEST(StepMarks, OnlyStepsInViewAreVisited) {
  auto steps = evenSteps(100'000, 1'000, 500);
  // A 10 us window in the middle: ten steps, 50 px each.
  TimeAxis a = axis(50'000'000.0, 50'010'000.0, 1000);
  std::vector<StepMark> marks;
  stepMarks(steps, a, 3.0f, marks);
  ASSERT_EQ(marks.size(), 11u);  // the step starting at the right edge is included
  EXPECT_EQ(marks.front().first, 50'000u);
  for (const StepMark& m : marks) EXPECT_FALSE(m.folded());
}

TEST(StepMarks, NoStepsNoMarks) {
  std::vector<StepMark> marks{StepMark{}};
  stepMarks({}, axis(0, 10, 10), 3.0f, marks);
  EXPECT_TRUE(marks.empty());
}

}  // namespace
}  // namespace fuselab::ui
