// The differential flame graph: B's flame graph with each frame's change
// against the frame at the same stack in A, judged against the noise as the
// compare judges its rows (NoiseTest.h): the samples are a frame's time in
// each step of each side.
#pragma once

#include <cmath>
#include <vector>

#include "profiling/analysis/stacks/FlameGraph.h"

namespace fuselab {

struct FlameDiff {
  FlameGraph b;  // over B's captured steps
  // Per frame of `b`: (median B - median A) / median A per step, +1 for a
  // frame A lacks, NaN when the change is within the noise.
  std::vector<float> change;
  size_t steps_a = 0, steps_b = 0;  // the samples per frame
};

// Traces without ProfilerStep#k count as one step each (too few samples to
// judge the noise: every change is then shown).
FlameDiff diffFlameGraphs(const Trace& a, const Trace& b, FlameMetric metric);

}  // namespace fuselab
