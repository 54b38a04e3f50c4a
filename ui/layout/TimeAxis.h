// Mapping between trace time (ns) and screen x (pixels) for one view, with
// zoom around a point and pan. Plain arithmetic: no ImGui, testable alone.
#pragma once

#include <cstdint>

namespace fuselab::ui {

struct TimeAxis {
  double start_ns = 0;    // time at the left edge of the view
  double ns_per_px = 1;   // zoom: nanoseconds covered by one pixel
  float origin_px = 0;    // screen x of the left edge
  float width_px = 1;

  double xToNs(float x) const { return start_ns + (x - origin_px) * ns_per_px; }
  float nsToX(double ns) const { return origin_px + static_cast<float>((ns - start_ns) / ns_per_px); }
  double endNs() const { return start_ns + width_px * ns_per_px; }

  // Shows [begin, end) across the width (with no margin).
  void fit(double begin_ns, double end_ns);
  // Shows [begin, end) with `margin` (a fraction of the span) free on each side.
  void fitWithMargin(double begin_ns, double end_ns, double margin);
  // Zooms by `factor` (> 1 zooms in) keeping the time under screen x fixed.
  // Zoom is clamped between 1/100 ns per pixel and `max_ns_per_px`.
  void zoomAround(float x, double factor, double max_ns_per_px);
  // Moves the view by a drag of dx pixels (content follows the pointer).
  void panPixels(float dx);
};

}  // namespace fuselab::ui
