#include "ui/layout/FlameLayout.h"

namespace fuselab::ui {

std::vector<FlameRect> layoutFlame(const FlameGraph& graph, FlameMetric metric, uint32_t zoom, float width,
                                   float min_px) {
  std::vector<FlameRect> out;
  if (graph.frames.empty() || zoom >= graph.frames.size()) return out;
  const int64_t zoom_total = graph.frames[zoom].total(metric);
  if (zoom_total <= 0 || width <= 0) return out;
  // The callers of the zoomed frame, full width.
  std::vector<uint32_t> callers{0};
  for (uint32_t f : graph.path(zoom)) callers.push_back(f);
  for (size_t k = 0; k < callers.size(); ++k) out.push_back(FlameRect{callers[k], uint16_t(k), 0, width});
  const double px_per_ns = double(width) / double(zoom_total);
  // Below it, breadth first: each frame's children side by side from its left.
  std::vector<FlameRect> level{out.back()};
  while (!level.empty()) {
    std::vector<FlameRect> next;
    for (const FlameRect& parent : level) {
      float x = parent.x0;
      for (uint32_t c : graph.frames[parent.frame].children) {
        const int64_t v = graph.frames[c].total(metric);
        if (v <= 0) continue;
        const float w = float(double(v) * px_per_ns);
        if (w >= min_px) next.push_back(FlameRect{c, uint16_t(parent.row + 1), x, std::min(x + w, parent.x1)});
        x += w;
      }
    }
    out.insert(out.end(), next.begin(), next.end());
    level = std::move(next);
  }
  return out;
}

const FlameRect* flameRectAt(const std::vector<FlameRect>& rects, float x, int row) {
  for (const FlameRect& r : rects)
    if (r.row == row && x >= r.x0 && x < r.x1) return &r;
  return nullptr;
}

}  // namespace fuselab::ui
