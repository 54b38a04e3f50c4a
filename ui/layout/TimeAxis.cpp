#include "ui/layout/TimeAxis.h"

#include <algorithm>

namespace fuselab::ui {

namespace {
constexpr double kMinNsPerPx = 0.01;
}

void TimeAxis::fit(double begin_ns, double end_ns) {
  double span = std::max(end_ns - begin_ns, 1.0);
  start_ns = begin_ns;
  ns_per_px = std::max(span / std::max(width_px, 1.0f), kMinNsPerPx);
}

void TimeAxis::fitWithMargin(double begin_ns, double end_ns, double margin) {
  double pad = std::max(end_ns - begin_ns, 1.0) * std::max(margin, 0.0);
  fit(begin_ns - pad, end_ns + pad);
}

void TimeAxis::zoomAround(float x, double factor, double max_ns_per_px) {
  if (factor <= 0) return;
  double anchor = xToNs(x);
  ns_per_px = std::clamp(ns_per_px / factor, kMinNsPerPx, std::max(max_ns_per_px, kMinNsPerPx));
  start_ns = anchor - (x - origin_px) * ns_per_px;
}

void TimeAxis::panPixels(float dx) { start_ns -= dx * ns_per_px; }

}  // namespace fuselab::ui
