// A logarithmic axis for plots (the sweep: tokens and time per forward span
// several decades): value <-> pixel mapping and "nice" tick values. Plain
// arithmetic, no ImGui.
#pragma once

#include <string>
#include <vector>

namespace fuselab::ui {

struct LogAxis {
  double lo = 1;    // value at px0 (> 0)
  double hi = 10;   // value at px1 (> lo)
  float px0 = 0;
  float px1 = 1;    // may be smaller than px0 (a y axis grows upwards)

  // Bounds padded out to the enclosing 1-2-5 values (e.g. 3..700 -> 2..1000);
  // min/max <= 0 are ignored; a single value gets a decade around it.
  static LogAxis fit(double min_value, double max_value, float px0, float px1);

  float toPx(double v) const;     // values <= 0 map to px0
  double fromPx(float px) const;

  // Ticks in [lo, hi]: powers of ten, plus 2 and 5 times them when the axis
  // spans fewer than three decades.
  std::vector<double> ticks() const;
};

// Tick labels: 1, 20, 500, 2k, 10k, 1M.
std::string formatCount(double v);

}  // namespace fuselab::ui
