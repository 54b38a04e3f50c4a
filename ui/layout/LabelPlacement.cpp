#include "ui/layout/LabelPlacement.h"

#include <algorithm>
#include <cmath>

namespace fuselab::ui {

namespace {

// Gap between a point's disc and its label, and the distances tried with a
// leader line, in label heights.
constexpr float kGap = 3;
constexpr float kLeaderSteps[] = {1.5f, 3.0f, 4.5f};

// The label's box with its near side `gap` past the disc, in direction
// (dx, dy) from the point (each -1, 0 or 1).
LabelRect boxAround(const LabelRequest& l, int dx, int dy, float gap) {
  const float reach = l.point.radius + gap;
  float x = l.point.x - l.width / 2, y = l.point.y - l.height / 2;
  if (dx > 0) x = l.point.x + reach;
  if (dx < 0) x = l.point.x - reach - l.width;
  if (dy > 0) y = l.point.y + reach;
  if (dy < 0) y = l.point.y - reach - l.height;
  return {x, y, x + l.width, y + l.height};
}

bool isFree(const LabelRect& r, const LabelRequest& own, const std::vector<LabelDisc>& discs,
            const std::vector<LabelRect>& taken, const LabelRect& bounds) {
  if (!r.inside(bounds)) return false;
  for (const LabelRect& t : taken)
    if (t.intersects(r)) return false;
  for (const LabelDisc& d : discs) {
    const bool own_point = d.x == own.point.x && d.y == own.point.y;
    if (!own_point && d.intersects(r)) return false;
  }
  return true;
}

}  // namespace

bool LabelDisc::intersects(const LabelRect& r) const {
  const float cx = std::clamp(x, r.x0, r.x1), cy = std::clamp(y, r.y0, r.y1);
  const float dx = x - cx, dy = y - cy;
  return dx * dx + dy * dy < radius * radius;
}

std::vector<PlacedLabel> placeLabels(const std::vector<LabelRequest>& labels, const std::vector<LabelDisc>& discs,
                                     const LabelRect& bounds, const std::vector<LabelRect>& reserved) {
  // Beside the point first (right, left, above, below), then the corners.
  static constexpr int kDirections[][2] = {{1, 0}, {-1, 0}, {0, -1}, {0, 1}, {1, -1}, {-1, -1}, {1, 1}, {-1, 1}};
  std::vector<PlacedLabel> out(labels.size());
  std::vector<LabelRect> taken = reserved;
  for (size_t i = 0; i < labels.size(); ++i) {
    const LabelRequest& l = labels[i];
    auto tryGap = [&](float gap, bool leader) {
      for (const auto& d : kDirections) {
        const LabelRect r = boxAround(l, d[0], d[1], gap);
        if (!isFree(r, l, discs, taken, bounds)) continue;
        out[i] = {true, r, leader};
        taken.push_back(r);
        return true;
      }
      return false;
    };
    if (tryGap(kGap, false)) continue;
    for (float step : kLeaderSteps)
      if (tryGap(kGap + step * l.height, true)) break;
  }
  return out;
}

}  // namespace fuselab::ui
