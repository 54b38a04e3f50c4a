// Time ruler ticks for the timeline: tick spacing from the 1-2-5 series so
// labels never crowd, in a unit that reads well (ns/us/ms/s). Durations use
// profiling/DurationText.h.
#pragma once

#include <string>
#include <vector>

#include "ui/layout/TimeAxis.h"

namespace fuselab::ui {

struct RulerTick {
  float x = 0;       // screen x
  double ns = 0;     // time (absolute, same axis as TimeAxis)
  bool major = false;
  std::string label;  // offset from the ruler origin; empty on minor ticks
};

struct Ruler {
  double major_step_ns = 0;
  double minor_step_ns = 0;
  std::vector<RulerTick> ticks;  // left to right, inside the view
};

// Major ticks are at least `min_label_px` apart; labels give the time since
// `origin_ns` (e.g. the trace start) in one unit chosen for the whole ruler.
Ruler rulerTicks(const TimeAxis& axis, double origin_ns, float min_label_px = 90.0f);

// Smallest 1/2/5 x 10^k ns step that is at least `min_ns`.
double niceStepNs(double min_ns);

// Offset label with enough decimals to tell ticks `step_ns` apart, in the
// unit that suits `magnitude_ns` (the largest offset shown): "1.5 ms", "1.50001 ms".
std::string formatOffset(double offset_ns, double step_ns, double magnitude_ns);

}  // namespace fuselab::ui
