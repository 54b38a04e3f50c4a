#include "profiling/analysis/compare/FlameDiff.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "profiling/analysis/common/Intervals.h"
#include "profiling/analysis/compare/NoiseTest.h"
#include "profiling/analysis/single/AnalysisSteps.h"

namespace fuselab {

namespace {

// A frame's stack of labels, the key that matches frames across traces.
std::vector<std::string> pathKeys(const Trace& trace, const FlameGraph& g) {
  std::vector<std::string> keys(g.frames.size());
  for (uint32_t f = 1; f < g.frames.size(); ++f) {
    const FlameFrame& fr = g.frames[f];
    // Threads differ between runs: every thread is one "thread" frame.
    const std::string label = fr.kind == FrameKind::Thread ? "[thread]" : frameLabel(trace, fr);
    keys[f] = keys[fr.parent] + '\x1f' + label;
  }
  return keys;
}

// Per stack, its time in each step (0 where a step lacks it).
std::map<std::string, std::vector<double>> perStep(const Trace& trace, FlameMetric metric, size_t& steps) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (const StepStats& s : computeSteps(trace)) ranges.push_back({s.start_ns, s.end_ns});
  if (ranges.empty()) ranges.push_back({trace.beginNs(), trace.endNs() + 1});
  steps = ranges.size();
  std::map<std::string, std::vector<double>> samples;
  for (size_t k = 0; k < ranges.size(); ++k) {
    const FlameGraph g = buildFlameGraph(trace, {ranges[k].first, ranges[k].second, {}});
    const std::vector<std::string> keys = pathKeys(trace, g);
    for (uint32_t f = 1; f < g.frames.size(); ++f) {
      std::vector<double>& v = samples[keys[f]];
      v.resize(ranges.size(), 0.0);
      v[k] += double(g.frames[f].total(metric));
    }
  }
  return samples;
}

}  // namespace

FlameDiff diffFlameGraphs(const Trace& a, const Trace& b, FlameMetric metric) {
  FlameDiff out;
  out.b = buildFlameGraph(b, analysisFlameRange(b));
  const auto samples_a = perStep(a, metric, out.steps_a);
  const auto samples_b = perStep(b, metric, out.steps_b);
  const std::vector<std::string> keys = pathKeys(b, out.b);
  out.change.assign(out.b.frames.size(), std::numeric_limits<float>::quiet_NaN());
  for (uint32_t f = 1; f < out.b.frames.size(); ++f) {
    const auto ib = samples_b.find(keys[f]);
    if (ib == samples_b.end()) continue;  // outside the steps
    const auto ia = samples_a.find(keys[f]);
    const std::vector<double> sa = ia == samples_a.end() ? std::vector<double>(out.steps_a, 0.0) : ia->second;
    const NoiseTestResult test = compareSamples(sa, ib->second);
    if (test.outcome == NoiseOutcome::WithinNoise || test.outcome == NoiseOutcome::Same) continue;
    const double ma = median(sa), mb = median(ib->second);
    out.change[f] = ma > 0 ? float((mb - ma) / ma) : mb > 0 ? 1.0f : 0.0f;
  }
  out.change[0] = 0;
  return out;
}

}  // namespace fuselab
