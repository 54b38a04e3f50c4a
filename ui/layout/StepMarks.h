// Step overlays (the "steps" band and the boundary lines across the lanes)
// folded like events: a step at least `min_step_px` wide is drawn on its own;
// a run of narrower steps becomes one band ("N steps") and one pair of lines.
// The walk starts at the first visible step (binary search) and jumps over
// each folded run by binary search, so a frame costs what is on screen, not
// the number of steps (21,300 on a 1M-event trace).
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/analysis/single/AnalysisSteps.h"
#include "ui/layout/TimeAxis.h"

namespace fuselab::ui {

struct StepMark {
  float x0 = 0, x1 = 0;  // screen x, clipped to a little outside the view
  uint32_t first = 0;    // index into the steps vector
  uint32_t count = 1;    // > 1: a folded run of steps

  bool folded() const { return count > 1; }
};

// Marks for `steps` (sorted by start, not overlapping: one profiler thread's
// ProfilerStep#k annotations, as analyze() finds them), left to right.
void stepMarks(const std::vector<StepStats>& steps, const TimeAxis& axis, float min_step_px,
               std::vector<StepMark>& out);

// Screen x of the boundary lines to draw for `marks`: a step's start and end,
// a folded run's outer edges, never two lines closer than `min_gap_px`.
void stepLines(const std::vector<StepMark>& marks, const TimeAxis& axis, float min_gap_px, std::vector<float>& out);

}  // namespace fuselab::ui
