// Is a difference between two sets of repeated measurements larger than
// their noise? Summaries (median, quartiles, range) of one side's samples and
// one deterministic rule for "changed": the 95% percentile bootstrap interval
// of the difference of medians (B - A), 2000 resamples with a fixed seed,
// excludes zero. Pure functions; the same input always gives the same answer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace fuselab {

struct SampleSummary {
  size_t n = 0;
  double median = 0, q1 = 0, q3 = 0, min = 0, max = 0;  // 0 when n == 0
};

// Quartiles by linear interpolation between order statistics (type 7, as R and NumPy).
SampleSummary summarizeSamples(std::vector<double> samples);

enum class NoiseOutcome : uint8_t {
  Same,          // every sample of both sides is the same value
  WithinNoise,   // the interval of B - A contains 0
  Higher,        // B's median is higher, beyond noise
  Lower,         // B's median is lower, beyond noise
  TooFewSamples  // a side has fewer than NoiseRule::kMinSamples samples
};
std::string_view noiseOutcomeName(NoiseOutcome o);  // "same", "within_noise", "higher", "lower", "too_few_samples"

struct NoiseRule {
  static constexpr size_t kMinSamples = 3;  // per side
  static constexpr int kResamples = 2000;
  static constexpr double kConfidence = 0.95;
  static constexpr uint64_t kSeed = 0x5eedf00d;
  // For people and for the JSON output.
  static std::string_view description();
};

struct NoiseTestResult {
  NoiseOutcome outcome = NoiseOutcome::TooFewSamples;
  double median_delta = 0;         // median(B) - median(A)
  double ci_low = 0, ci_high = 0;  // bootstrap interval of median(B) - median(A)
  bool beyondNoise() const { return outcome == NoiseOutcome::Higher || outcome == NoiseOutcome::Lower; }
};

NoiseTestResult compareSamples(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace fuselab
