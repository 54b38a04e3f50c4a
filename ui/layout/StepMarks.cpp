#include "ui/layout/StepMarks.h"

#include <algorithm>
#include <cmath>

namespace fuselab::ui {

void stepMarks(const std::vector<StepStats>& steps, const TimeAxis& axis, float min_step_px,
               std::vector<StepMark>& out) {
  out.clear();
  if (steps.empty()) return;
  const double view_begin = axis.start_ns, view_end = axis.endNs();
  const float left = axis.origin_px - 2, right = axis.origin_px + axis.width_px + 2;
  const double min_ns = std::max(0.0, double(min_step_px) * axis.ns_per_px);
  // First step that ends inside or after the view.
  size_t i = size_t(std::partition_point(steps.begin(), steps.end(),
                                         [&](const StepStats& s) { return double(s.end_ns) < view_begin; }) -
                    steps.begin());
  while (i < steps.size() && double(steps[i].start_ns) <= view_end) {
    const StepStats& s = steps[i];
    StepMark m;
    m.first = uint32_t(i);
    if (double(s.end_ns - s.start_ns) >= min_ns) {
      ++i;
    } else {
      // A run: every step that starts within min_ns of the run's end so far
      // (found by binary search on the start times; a wide step that starts
      // that close is folded in too). It stops at a visible hole, or once it
      // reaches past the right edge of the view.
      size_t j = i + 1;
      double run_end = double(s.end_ns);
      while (j < steps.size() && run_end <= view_end) {
        double limit = run_end + min_ns;
        auto stop = std::partition_point(steps.begin() + long(j), steps.end(),
                                         [&](const StepStats& t) { return double(t.start_ns) < limit; });
        size_t k = size_t(stop - steps.begin());
        if (k == j) break;
        for (size_t e : {j, k - 1}) run_end = std::max(run_end, double(steps[e].end_ns));
        j = k;
      }
      m.count = uint32_t(j - i);
      i = j;
    }
    const StepStats& last = steps[m.first + m.count - 1];
    m.x0 = std::max(axis.nsToX(double(s.start_ns)), left);
    m.x1 = std::min(axis.nsToX(double(last.end_ns)), right);
    out.push_back(m);
  }
}

void stepLines(const std::vector<StepMark>& marks, const TimeAxis& axis, float min_gap_px, std::vector<float>& out) {
  out.clear();
  const float left = axis.origin_px, right = axis.origin_px + axis.width_px;
  auto add = [&](float x) {
    x = std::round(x) + 0.5f;
    if (x < left || x > right) return;
    if (!out.empty() && x - out.back() < min_gap_px) return;
    out.push_back(x);
  };
  for (const StepMark& m : marks) {
    add(m.x0);
    add(m.x1);
  }
}

}  // namespace fuselab::ui
