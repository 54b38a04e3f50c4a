// The noise rule on known samples: quartiles, a shift far beyond the spread,
// a shift well inside it, constant sides, too few samples, determinism, and
// how often two draws of one distribution are called different.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "profiling/analysis/compare/NoiseTest.h"

namespace fuselab {
namespace {

// n values spread evenly over [center - half_width, center + half_width], in a scrambled order.
std::vector<double> spread(double center, double half_width, int n, int scramble = 7) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) {
    const int j = (i * scramble) % n;
    v[i] = center - half_width + 2 * half_width * double(j) / double(n - 1);
  }
  return v;
}

TEST(NoiseTest, SummaryOfKnownSamples) {
  const SampleSummary odd = summarizeSamples({9, 1, 8, 2, 7, 3, 6, 4, 5});
  EXPECT_EQ(odd.n, 9u);
  EXPECT_EQ(odd.median, 5);
  EXPECT_EQ(odd.q1, 3);
  EXPECT_EQ(odd.q3, 7);
  EXPECT_EQ(odd.min, 1);
  EXPECT_EQ(odd.max, 9);
  const SampleSummary even = summarizeSamples({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(even.median, 2.5);
  EXPECT_DOUBLE_EQ(even.q1, 1.75);  // type 7: 1 + 0.75 * (2 - 1)
  EXPECT_DOUBLE_EQ(even.q3, 3.25);
  EXPECT_EQ(summarizeSamples({}).n, 0u);
}

TEST(NoiseTest, AShiftBeyondTheSpreadIsAChange) {
  const auto a = spread(100, 5, 12);
  const auto up = spread(130, 5, 12, 5);
  NoiseTestResult r = compareSamples(a, up);
  EXPECT_EQ(r.outcome, NoiseOutcome::Higher);
  EXPECT_DOUBLE_EQ(r.median_delta, 30);
  EXPECT_GT(r.ci_low, 0);
  EXPECT_LE(r.ci_low, 30);
  EXPECT_GE(r.ci_high, 30);
  r = compareSamples(up, a);
  EXPECT_EQ(r.outcome, NoiseOutcome::Lower);
  EXPECT_LT(r.ci_high, 0);
  EXPECT_TRUE(r.beyondNoise());
}

TEST(NoiseTest, AShiftInsideTheSpreadIsWithinNoise) {
  const auto a = spread(100, 20, 12);
  const auto b = spread(102, 20, 12, 5);
  const NoiseTestResult r = compareSamples(a, b);
  EXPECT_EQ(r.outcome, NoiseOutcome::WithinNoise);
  EXPECT_FALSE(r.beyondNoise());
  EXPECT_LT(r.ci_low, 0);
  EXPECT_GT(r.ci_high, 0);
}

TEST(NoiseTest, ConstantSides) {
  // Counts that never vary: equal is "same", a different count is a change however small.
  EXPECT_EQ(compareSamples({5, 5, 5}, {5, 5, 5, 5}).outcome, NoiseOutcome::Same);
  const NoiseTestResult r = compareSamples({5, 5, 5}, {6, 6, 6});
  EXPECT_EQ(r.outcome, NoiseOutcome::Higher);
  EXPECT_EQ(r.ci_low, 1);
  EXPECT_EQ(r.ci_high, 1);
}

TEST(NoiseTest, TooFewSamplesSaysSo) {
  const NoiseTestResult r = compareSamples({1, 2}, {10, 11, 12});
  EXPECT_EQ(r.outcome, NoiseOutcome::TooFewSamples);
  EXPECT_DOUBLE_EQ(r.median_delta, 9.5);
  EXPECT_EQ(compareSamples({}, {1, 2, 3}).outcome, NoiseOutcome::TooFewSamples);
  EXPECT_EQ(noiseOutcomeName(NoiseOutcome::TooFewSamples), "too_few_samples");
}

TEST(NoiseTest, SameInputSameAnswer) {
  const auto a = spread(100, 10, 9), b = spread(107, 10, 9, 2);
  const NoiseTestResult x = compareSamples(a, b), y = compareSamples(a, b);
  EXPECT_EQ(x.outcome, y.outcome);
  EXPECT_EQ(x.ci_low, y.ci_low);
  EXPECT_EQ(x.ci_high, y.ci_high);
}

// Two draws of 10 from one normal distribution: a 95% interval should call
// them different rarely; a 3-sigma shift nearly always.
TEST(NoiseTest, FalseAndTrueAlarmRatesOnNormalDraws) {
  std::mt19937_64 rng(12345);
  std::normal_distribution<double> normal(1000.0, 50.0);
  auto draw = [&](double shift) {
    std::vector<double> v(10);
    for (double& x : v) x = normal(rng) + shift;
    return v;
  };
  int false_alarms = 0, detected = 0;
  const int trials = 100;
  for (int t = 0; t < trials; ++t) {
    if (compareSamples(draw(0), draw(0)).beyondNoise()) ++false_alarms;
    if (compareSamples(draw(0), draw(150)).beyondNoise()) ++detected;
  }
  EXPECT_LE(false_alarms, 10) << "of " << trials;
  EXPECT_GE(detected, 90) << "of " << trials;
}

}  // namespace
}  // namespace fuselab
