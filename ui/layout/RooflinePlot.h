// The roofline plot's geometry (the Roofline tab and the sweep's trajectory):
// log-log axes of intensity (FLOP/byte) and achieved TFLOP/s, the roof
// min(peak, intensity x bandwidth) as a polyline, dots whose area grows with
// total time, and hit testing. Plain arithmetic, no ImGui.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "ui/layout/LogAxis.h"

namespace fuselab::ui {

struct RooflineDot {
  double intensity = 0;  // FLOP/byte (> 0 to be drawn)
  double tflops = 0;     // achieved (> 0 to be drawn)
  double total_ns = 0;   // its time: the dot's area
};

struct PlotPoint {
  float x = 0, y = 0;
};

struct RooflinePlot {
  LogAxis x;  // intensity
  LogAxis y;  // TFLOP/s
  double peak_tflops = 0;
  double bandwidth_gbps = 0;

  // Axes covering the dots that can be drawn and the roof's ridge, inside the
  // rectangle (x0, y0) - (x1, y1) in pixels (y grows downwards).
  static RooflinePlot fit(const std::vector<RooflineDot>& dots, double peak_tflops, double bandwidth_gbps, float x0,
                          float y0, float x1, float y1);

  // min(peak, intensity x bandwidth) in TFLOP/s.
  double attainableTflops(double intensity) const;
  // Intensity where the slanted roof meets the flat one (peak / bandwidth).
  double ridgeIntensity() const;
  // The roof from the left edge to the right edge: 2 or 3 points.
  std::vector<PlotPoint> roof() const;

  PlotPoint at(double intensity, double tflops) const { return {x.toPx(intensity), y.toPx(tflops)}; }
};

// Whether a dot has a place on log axes.
bool drawable(const RooflineDot& d);

// Radius in pixels: area proportional to total_ns, the largest dot max_radius,
// none smaller than min_radius.
float dotRadius(double total_ns, double max_total_ns, float min_radius, float max_radius);

// The dot under (px, py): the nearest whose circle holds the point, smaller
// dots first when circles overlap (so a small dot on a big one stays reachable).
std::optional<size_t> hitDot(const RooflinePlot& plot, const std::vector<RooflineDot>& dots,
                             const std::vector<float>& radii, float px, float py);

// The point of a trajectory (dots at ascending `tokens`) at `at` tokens,
// interpolated on log scales between its neighbours (the sweep marks its
// overhead->compute crossover there); nullopt outside the trajectory or when
// a neighbour cannot be drawn.
std::optional<RooflineDot> trajectoryAt(const std::vector<double>& tokens, const std::vector<RooflineDot>& dots,
                                        double at);

}  // namespace fuselab::ui
