// The frame both roofline pictures share (the Roofline tab and the sweep's
// trajectory): the plot rectangle, the grid at the log axes' ticks with
// their labels, and the axis titles; and the text both place inside it,
// kept off each other (ui/layout/LabelPlacement.h).
#pragma once

#include <imgui.h>

#include <string>

#include "ui/Theme.h"
#include "ui/layout/LabelPlacement.h"
#include "ui/layout/RooflinePlot.h"

namespace fuselab::ui {

inline constexpr const char* kRooflineXTitle = "FLOP/byte (log)";         // under the x tick labels, right
inline constexpr const char* kRooflineYTitle = "achieved TFLOP/s (log)";  // inside the plot, top left

// The plot spans (left, top) - (right, bottom); tick labels go left of it
// and below it, the x title under them. Returns the corner the y title takes
// inside the plot, for labels to keep off.
LabelRect drawRooflineFrame(ImDrawList* dl, const RooflinePlot& plot, float left, float top, float right, float bottom,
                            const Theme& th);

// Three significant digits, as the roofline pictures print ceilings: "989", "4.8e+03".
std::string g3(double v);

// Text at `at`; returns the box it covers (for placeLabels' `reserved`).
LabelRect drawPlotText(ImDrawList* dl, ImVec2 at, ImU32 color, const std::string& text);

// A label where placeLabels put it, with its leader line back to `point`
// when it stands away from it; nothing when it found no place.
void drawPlacedLabel(ImDrawList* dl, const PlacedLabel& placed, const LabelDisc& point, const std::string& text,
                     ImU32 color, ImU32 leader_color);

}  // namespace fuselab::ui
