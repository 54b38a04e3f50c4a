#include "ui/layout/LogAxis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fuselab::ui {

namespace {

// The largest 1-2-5 value <= v, or the smallest >= v.
double niceBelow(double v) {
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {5.0, 2.0, 1.0})
    if (m * p <= v * (1 + 1e-12)) return m * p;
  return p;
}
double niceAbove(double v) {
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= v * (1 - 1e-12)) return m * p;
  return 10 * p;
}

}  // namespace

LogAxis LogAxis::fit(double min_value, double max_value, float px0, float px1) {
  LogAxis a;
  a.px0 = px0;
  a.px1 = px1;
  if (!(min_value > 0) && !(max_value > 0)) return a;  // 1..10
  if (!(min_value > 0)) min_value = max_value;
  if (!(max_value > 0)) max_value = min_value;
  if (min_value > max_value) std::swap(min_value, max_value);
  a.lo = niceBelow(min_value);
  a.hi = niceAbove(max_value);
  if (a.hi <= a.lo) {
    a.lo /= 3.16227766;
    a.hi *= 3.16227766;
  }
  return a;
}

float LogAxis::toPx(double v) const {
  if (!(v > 0)) return px0;
  const double t = (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo));
  return static_cast<float>(px0 + t * (px1 - px0));
}

double LogAxis::fromPx(float px) const {
  if (px1 == px0) return lo;
  const double t = double(px - px0) / double(px1 - px0);
  return std::exp(std::log(lo) + t * (std::log(hi) - std::log(lo)));
}

std::vector<double> LogAxis::ticks() const {
  std::vector<double> out;
  if (!(lo > 0) || !(hi > lo)) return out;
  const bool fine = std::log10(hi / lo) < 3.0;
  const int first = static_cast<int>(std::floor(std::log10(lo)));
  const int last = static_cast<int>(std::ceil(std::log10(hi)));
  for (int e = first; e <= last; ++e) {
    const double p = std::pow(10.0, e);
    for (double m : fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
      const double v = m * p;
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push_back(v);
    }
  }
  return out;
}

std::string formatCount(double v) {
  char buf[32];
  const double a = std::fabs(v);
  auto fmt = [&](double x, const char* suffix) {
    if (x == std::floor(x)) std::snprintf(buf, sizeof buf, "%.0f%s", x, suffix);
    else std::snprintf(buf, sizeof buf, "%.3g%s", x, suffix);
  };
  if (a >= 1e6) fmt(v / 1e6, "M");
  else if (a >= 1e3) fmt(v / 1e3, "k");
  else fmt(v, "");
  return buf;
}

}  // namespace fuselab::ui
