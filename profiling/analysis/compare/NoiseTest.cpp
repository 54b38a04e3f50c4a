#include "profiling/analysis/compare/NoiseTest.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace fuselab {

namespace {

// Type-7 quantile of sorted values.
double quantile(const std::vector<double>& sorted, double p) {
  const double h = p * double(sorted.size() - 1);
  const size_t lo = size_t(std::floor(h));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - double(lo)) * (sorted[hi] - sorted[lo]);
}

double medianOf(std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  return quantile(v, 0.5);
}

// One bootstrap resample's median. Indices come from the engine directly
// (std::mt19937_64 output is fixed by the standard; uniform_int_distribution
// is not), so results match across standard libraries.
double resampledMedian(const std::vector<double>& from, std::mt19937_64& rng, std::vector<double>& scratch) {
  scratch.resize(from.size());
  for (double& x : scratch) x = from[size_t(rng() % from.size())];
  return medianOf(scratch);
}

}  // namespace

SampleSummary summarizeSamples(std::vector<double> samples) {
  SampleSummary s;
  s.n = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.median = quantile(samples, 0.5);
  s.q1 = quantile(samples, 0.25);
  s.q3 = quantile(samples, 0.75);
  return s;
}

std::string_view noiseOutcomeName(NoiseOutcome o) {
  switch (o) {
    case NoiseOutcome::Same: return "same";
    case NoiseOutcome::WithinNoise: return "within_noise";
    case NoiseOutcome::Higher: return "higher";
    case NoiseOutcome::Lower: return "lower";
    case NoiseOutcome::TooFewSamples: return "too_few_samples";
  }
  return "?";
}

std::string_view NoiseRule::description() {
  return "changed when the 95% percentile bootstrap interval of median(B) - median(A) excludes 0 "
         "(2000 resamples of each side, fixed seed; every recorded step of every trace is one sample; "
         "at least 3 samples per side)";
}

NoiseTestResult compareSamples(const std::vector<double>& a, const std::vector<double>& b) {
  NoiseTestResult r;
  if (a.empty() || b.empty()) return r;
  std::vector<double> sa = a, sb = b;
  r.median_delta = medianOf(sb) - medianOf(sa);
  r.ci_low = r.ci_high = r.median_delta;
  if (a.size() < NoiseRule::kMinSamples || b.size() < NoiseRule::kMinSamples) return r;
  const bool constant = sa.front() == sa.back() && sb.front() == sb.back();
  if (constant && sa.front() == sb.front()) {
    r.outcome = NoiseOutcome::Same;
    return r;
  }
  std::mt19937_64 rng(NoiseRule::kSeed);
  std::vector<double> deltas(NoiseRule::kResamples), scratch;
  for (double& d : deltas) {
    const double ma = resampledMedian(a, rng, scratch);
    d = resampledMedian(b, rng, scratch) - ma;
  }
  std::sort(deltas.begin(), deltas.end());
  const double tail = (1.0 - NoiseRule::kConfidence) / 2.0;
  r.ci_low = quantile(deltas, tail);
  r.ci_high = quantile(deltas, 1.0 - tail);
  if (r.ci_low > 0)
    r.outcome = NoiseOutcome::Higher;
  else if (r.ci_high < 0)
    r.outcome = NoiseOutcome::Lower;
  else
    r.outcome = NoiseOutcome::WithinNoise;
  return r;
}

}  // namespace fuselab
