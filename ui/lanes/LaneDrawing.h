// Small drawing helpers shared by the timeline's lanes and the view.
#pragma once

#include <imgui.h>

#include <string_view>

namespace fuselab::ui {

// `c` with its alpha scaled by `alpha_scale` (clamped to [0, 1]).
ImU32 withAlpha(ImU32 c, float alpha_scale);

// Draws `text` inside [x0, x1] (vertically centred on y_mid), shortened with
// "..." when it does not fit; nothing when not even a few letters fit.
void drawFittedText(ImDrawList* dl, float x0, float x1, float y_mid, ImU32 color, std::string_view text);

// Diagonal lines `spacing` apart across the rectangle [a, b], drawn only
// between x = view_x0 and view_x1 (a rectangle may reach far off screen).
void drawHatch(ImDrawList* dl, ImVec2 a, ImVec2 b, float view_x0, float view_x1, ImU32 color, float spacing);

}  // namespace fuselab::ui
