// Where each frame of a flame graph is drawn: an icicle (the root on top,
// callees below), widths proportional to the chosen metric. Zoomed on a
// frame, that frame fills the width and its callers stay above it, full
// width; frames narrower than `min_px` are left out with what is under them.
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/analysis/stacks/FlameGraph.h"

namespace fuselab::ui {

struct FlameRect {
  uint32_t frame = 0;
  uint16_t row = 0;  // 0 = the root's row
  float x0 = 0, x1 = 0;  // from the left edge, in pixels
};

// Rows top to bottom, each left to right.
std::vector<FlameRect> layoutFlame(const FlameGraph& graph, FlameMetric metric, uint32_t zoom, float width,
                                   float min_px = 1.0f);

// The rectangle at (x, row), or nullptr.
const FlameRect* flameRectAt(const std::vector<FlameRect>& rects, float x, int row);

}  // namespace fuselab::ui
