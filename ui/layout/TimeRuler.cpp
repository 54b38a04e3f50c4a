#include "ui/layout/TimeRuler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fuselab::ui {

namespace {

struct Unit {
  double ns;
  const char* name;
};

Unit unitFor(double magnitude_ns) {
  double m = std::fabs(magnitude_ns);
  if (m < 1e3) return {1.0, "ns"};
  if (m < 1e6) return {1e3, "us"};
  if (m < 1e9) return {1e6, "ms"};
  return {1e9, "s"};
}

}  // namespace

double niceStepNs(double min_ns) {
  if (!(min_ns > 0)) return 1.0;
  double decade = std::pow(10.0, std::floor(std::log10(min_ns)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    // Tolerance: floating-point log10 may land a hair below an exact decade.
    if (m * decade >= min_ns * (1 - 1e-9)) return m * decade;
  }
  return 10.0 * decade;
}

std::string formatOffset(double offset_ns, double step_ns, double magnitude_ns) {
  Unit u = unitFor(std::max(std::fabs(magnitude_ns), step_ns));
  double step_in_unit = step_ns / u.ns;
  int decimals = 0;
  if (step_in_unit < 1) decimals = static_cast<int>(std::ceil(-std::log10(step_in_unit) - 1e-9));
  decimals = std::clamp(decimals, 0, 9);
  double v = offset_ns / u.ns;
  if (std::fabs(v) < 0.5 * std::pow(10.0, -decimals)) v = 0;  // no "-0"
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, v, u.name);
  return buf;
}

Ruler rulerTicks(const TimeAxis& axis, double origin_ns, float min_label_px) {
  Ruler r;
  if (axis.width_px <= 0 || axis.ns_per_px <= 0) return r;
  r.major_step_ns = niceStepNs(min_label_px * axis.ns_per_px);
  // Five minor ticks per major step, or two where five would be under 8 px apart.
  r.minor_step_ns = r.major_step_ns / 5;
  if (r.minor_step_ns / axis.ns_per_px < 8) r.minor_step_ns = r.major_step_ns / 2;

  double begin = axis.start_ns, end = axis.endNs();
  double magnitude = std::max(std::fabs(begin - origin_ns), std::fabs(end - origin_ns));
  // Ticks sit at multiples of the step measured from the origin, so "0" is
  // where the trace starts.
  double first = std::ceil((begin - origin_ns) / r.minor_step_ns);
  double last = std::floor((end - origin_ns) / r.minor_step_ns);
  if (last - first > 10000) return r;  // degenerate axis; never happens with a sane zoom
  int per_major = static_cast<int>(std::lround(r.major_step_ns / r.minor_step_ns));
  for (double k = first; k <= last; k += 1) {
    double offset = k * r.minor_step_ns;
    RulerTick t;
    t.ns = origin_ns + offset;
    t.x = axis.nsToX(t.ns);
    long long ki = std::llround(k);
    t.major = per_major > 0 && ki % per_major == 0;
    if (t.major) t.label = formatOffset(offset, r.major_step_ns, magnitude);
    r.ticks.push_back(std::move(t));
  }
  return r;
}

}  // namespace fuselab::ui
