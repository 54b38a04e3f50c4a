// Where a plot's labels go so that none covers another label or a point it
// does not name (the roofline, the sweep's trajectory, the critical path's
// plots). Plain geometry, no ImGui: labels are placed greedily in the order
// given (the most important first), each at the first free spot among
// candidates around its point, farther spots with a leader line back to it;
// a label with no free spot is left out, for the caller to list elsewhere.
#pragma once

#include <vector>

namespace fuselab::ui {

struct LabelRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // pixels, y down
  bool intersects(const LabelRect& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  bool inside(const LabelRect& o) const { return x0 >= o.x0 && y0 >= o.y0 && x1 <= o.x1 && y1 <= o.y1; }
};

// A point drawn as a disc: labels keep off every disc but their own.
struct LabelDisc {
  float x = 0, y = 0, radius = 0;
  bool intersects(const LabelRect& r) const;
};

struct LabelRequest {
  LabelDisc point;  // what the label names
  float width = 0, height = 0;
};

struct PlacedLabel {
  bool placed = false;
  LabelRect rect;        // the text's box when placed
  bool leader = false;   // set away from its point: draw a line from the point to the box
};

// `discs`: every point of the plot (the labelled ones too); `bounds`: where
// labels may go; `reserved`: text already there (titles, the roof's label).
// One result per request, in the same order.
std::vector<PlacedLabel> placeLabels(const std::vector<LabelRequest>& labels, const std::vector<LabelDisc>& discs,
                                     const LabelRect& bounds, const std::vector<LabelRect>& reserved = {});

}  // namespace fuselab::ui
