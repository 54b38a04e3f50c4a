#include "ui/lanes/CriticalPathOverlay.h"

#include <algorithm>

namespace fuselab::ui {

namespace {

constexpr size_t kMaxSegmentsPerFrame = 20'000;  // beyond, the view is too wide to read them; zoom in

// The row a segment is drawn on: its event's depth, else the lane's bottom row.
bool segmentRow(const LaneFrame& f, const Trace& trace, const PathSegment& s, float& y0, float& y1) {
  const Lane* lane = f.layout->laneOfTrack(s.track);
  if (!lane) return false;
  const int depth = s.event ? trace.tracks[s.track].depth[s.event->index] : lane->rows - 1;
  y0 = f.sy(f.layout->rowTop(*lane, depth));
  y1 = y0 + f.layout->row_height;
  return true;
}

}  // namespace

const StepPath* CriticalPathOverlay::stepAt(double ns) const {
  if (!path_ || path_->steps.empty()) return nullptr;
  const auto& steps = path_->steps;
  auto it = std::upper_bound(steps.begin(), steps.end(), ns,
                             [](double t, const StepPath& p) { return t < static_cast<double>(p.start_ns); });
  return it == steps.begin() ? &steps.front() : &*std::prev(it);
}

void CriticalPathOverlay::draw(const LaneFrame& f, const Trace& trace) const {
  if (!path_) return;
  const Theme& th = *f.theme;
  const double view_begin = f.axis->start_ns, view_end = f.axis->endNs();
  const auto& steps = path_->steps;
  auto it = std::upper_bound(steps.begin(), steps.end(), view_begin,
                             [](double t, const StepPath& p) { return t < static_cast<double>(p.start_ns); });
  if (it != steps.begin()) --it;
  const float thick = 2.0f * th.scale;
  size_t drawn = 0;
  for (; it != steps.end() && static_cast<double>(it->start_ns) <= view_end && drawn < kMaxSegmentsPerFrame; ++it) {
    float prev_x = 0, prev_y = 0;
    bool have_prev = false;
    for (const PathSegment& s : it->segments) {
      if (static_cast<double>(s.start_ns + s.dur_ns) < view_begin || static_cast<double>(s.start_ns) > view_end) {
        have_prev = false;
        continue;
      }
      float y0 = 0, y1 = 0;
      if (!segmentRow(f, trace, s, y0, y1)) {
        have_prev = false;
        continue;
      }
      const float x0 = f.axis->nsToX(static_cast<double>(s.start_ns));
      const float x1 = std::max(f.axis->nsToX(static_cast<double>(s.start_ns + s.dur_ns)), x0 + 1);
      if (s.event)
        f.dl->AddRect(ImVec2(x0 - 1, y0), ImVec2(x1 + 1, y1), th.critical_path, 0, 0, thick);
      else
        f.dl->AddRectFilled(ImVec2(x0, y1 - 3 * th.scale), ImVec2(x1, y1), th.critical_path);
      const float mid = (y0 + y1) * 0.5f;
      if (have_prev && prev_y != mid) f.dl->AddLine(ImVec2(prev_x, prev_y), ImVec2(x0, mid), th.critical_path, thick);
      prev_x = x1, prev_y = mid, have_prev = true;
      ++drawn;
    }
  }
}

}  // namespace fuselab::ui
