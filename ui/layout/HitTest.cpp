#include "ui/layout/HitTest.h"

#include <algorithm>
#include <cmath>

namespace fuselab::ui {

std::optional<Hit> hitTest(const LaneLayout& layout, const std::vector<LaneRecords>& lanes, float x, float y,
                           float tolerance_px) {
  const Lane* lane = layout.laneAt(y);
  if (!lane) return std::nullopt;
  auto lane_pos = static_cast<size_t>(lane - layout.lanes.data());
  if (lane_pos >= lanes.size()) return std::nullopt;
  return hitTestLane(layout, *lane, lanes[lane_pos], x, y, tolerance_px);
}

std::optional<Hit> hitTestLane(const LaneLayout& layout, const Lane& lane, const LaneRecords& lr, float x, float y,
                               float tolerance_px) {
  if (y < lane.top || y >= lane.top + lane.height) return std::nullopt;
  int depth = layout.rowAt(lane, y);
  if (depth < 0) return std::nullopt;
  if (static_cast<size_t>(depth) + 1 >= lr.depth_begin.size()) return std::nullopt;

  auto begin = lr.records.begin() + lr.depth_begin[depth];
  auto end = lr.records.begin() + lr.depth_begin[depth + 1];
  // Records of one depth are disjoint and sorted by x: the candidates are the
  // last one starting at or before x and the one after it.
  auto it = std::upper_bound(begin, end, x, [](float v, const DrawRecord& r) { return v < r.x0; });
  const DrawRecord* best = nullptr;
  float best_distance = tolerance_px;
  auto consider = [&](const DrawRecord& r) {
    float right = std::max(r.x1, r.x0 + 1.0f);  // records are drawn at least 1 px wide
    float d = x < r.x0 ? r.x0 - x : (x > right ? x - right : 0.0f);
    if (d <= best_distance) {
      best_distance = d;
      best = &r;
    }
  };
  if (it != begin) consider(*std::prev(it));
  if (it != end) consider(*it);
  if (!best) return std::nullopt;
  return Hit{lr.track, *best};
}

}  // namespace fuselab::ui
