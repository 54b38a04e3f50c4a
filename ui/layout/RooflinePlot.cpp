#include "ui/layout/RooflinePlot.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fuselab::ui {

bool drawable(const RooflineDot& d) {
  return d.intensity > 0 && d.tflops > 0 && std::isfinite(d.intensity) && std::isfinite(d.tflops);
}

RooflinePlot RooflinePlot::fit(const std::vector<RooflineDot>& dots, double peak_tflops, double bandwidth_gbps,
                               float x0, float y0, float x1, float y1) {
  RooflinePlot p;
  p.peak_tflops = peak_tflops;
  p.bandwidth_gbps = bandwidth_gbps;
  double ilo = std::numeric_limits<double>::infinity(), ihi = 0;
  double tlo = std::numeric_limits<double>::infinity(), thi = 0;
  for (const RooflineDot& d : dots) {
    if (!drawable(d)) continue;
    ilo = std::min(ilo, d.intensity), ihi = std::max(ihi, d.intensity);
    tlo = std::min(tlo, d.tflops), thi = std::max(thi, d.tflops);
  }
  if (peak_tflops > 0 && bandwidth_gbps > 0) {
    const double ridge = p.ridgeIntensity();
    ilo = std::min(ilo, ridge / 10), ihi = std::max(ihi, ridge * 4);
    thi = std::max(thi, peak_tflops);
    tlo = std::min(tlo, p.attainableTflops(ilo));
  }
  if (!(ihi > 0)) ilo = ihi = 1;
  if (!(thi > 0)) tlo = thi = 1;
  p.x = LogAxis::fit(ilo, ihi, x0, x1);
  p.y = LogAxis::fit(tlo, thi * 1.5, y1, y0);  // headroom above the roof; y grows upwards
  return p;
}

double RooflinePlot::attainableTflops(double intensity) const {
  return std::min(peak_tflops, intensity * bandwidth_gbps / 1e3);
}

double RooflinePlot::ridgeIntensity() const { return bandwidth_gbps > 0 ? peak_tflops * 1e3 / bandwidth_gbps : 0; }

std::vector<PlotPoint> RooflinePlot::roof() const {
  std::vector<PlotPoint> out;
  if (!(peak_tflops > 0) || !(bandwidth_gbps > 0)) return out;
  out.push_back(at(x.lo, attainableTflops(x.lo)));
  const double ridge = ridgeIntensity();
  if (ridge > x.lo && ridge < x.hi) out.push_back(at(ridge, peak_tflops));
  out.push_back(at(x.hi, attainableTflops(x.hi)));
  return out;
}

float dotRadius(double total_ns, double max_total_ns, float min_radius, float max_radius) {
  if (!(max_total_ns > 0) || !(total_ns > 0)) return min_radius;
  const float r = max_radius * static_cast<float>(std::sqrt(std::min(1.0, total_ns / max_total_ns)));
  return std::max(min_radius, r);
}

std::optional<size_t> hitDot(const RooflinePlot& plot, const std::vector<RooflineDot>& dots,
                             const std::vector<float>& radii, float px, float py) {
  std::optional<size_t> best;
  float best_radius = std::numeric_limits<float>::infinity();
  float best_distance = std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < dots.size() && i < radii.size(); ++i) {
    if (!drawable(dots[i])) continue;
    const PlotPoint c = plot.at(dots[i].intensity, dots[i].tflops);
    const float d = std::hypot(px - c.x, py - c.y);
    if (d > radii[i]) continue;
    if (radii[i] < best_radius || (radii[i] == best_radius && d < best_distance)) {
      best = i;
      best_radius = radii[i];
      best_distance = d;
    }
  }
  return best;
}

std::optional<RooflineDot> trajectoryAt(const std::vector<double>& tokens, const std::vector<RooflineDot>& dots,
                                        double at) {
  for (size_t i = 0; i + 1 < tokens.size() && i + 1 < dots.size(); ++i) {
    if (!(at >= tokens[i] && at <= tokens[i + 1])) continue;
    const RooflineDot &a = dots[i], &b = dots[i + 1];
    if (!drawable(a) || !drawable(b) || !(tokens[i] > 0)) return std::nullopt;
    const double t = tokens[i + 1] > tokens[i] ? std::log(at / tokens[i]) / std::log(tokens[i + 1] / tokens[i]) : 0;
    auto lerp = [&](double x, double y) { return std::exp(std::log(x) + t * (std::log(y) - std::log(x))); };
    return RooflineDot{lerp(a.intensity, b.intensity), lerp(a.tflops, b.tflops), 0};
  }
  return std::nullopt;
}

}  // namespace fuselab::ui
