// The frame both roofline pictures share (the Roofline tab and the sweep's
// trajectory): the plot rectangle, the grid at the log axes' ticks with
// their labels, and the axis titles.
#pragma once

#include <imgui.h>

#include "ui/Theme.h"
#include "ui/layout/RooflinePlot.h"

namespace fuselab::ui {

inline constexpr const char* kRooflineXTitle = "FLOP/byte (log)";         // under the x tick labels, right
inline constexpr const char* kRooflineYTitle = "achieved TFLOP/s (log)";  // inside the plot, top left

// The plot spans (left, top) - (right, bottom); tick labels go left of it
// and below it, the x title under them.
void drawRooflineFrame(ImDrawList* dl, const RooflinePlot& plot, float left, float top, float right, float bottom,
                       const Theme& th);

}  // namespace fuselab::ui
