#include "ui/lanes/LaneDrawing.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace fuselab::ui {

ImU32 withAlpha(ImU32 c, float alpha_scale) {
  auto a = static_cast<float>((c >> IM_COL32_A_SHIFT) & 0xFF) * std::clamp(alpha_scale, 0.0f, 1.0f);
  return (c & ~IM_COL32_A_MASK) | (static_cast<ImU32>(a) << IM_COL32_A_SHIFT);
}

void drawFittedText(ImDrawList* dl, float x0, float x1, float y_mid, ImU32 color, std::string_view text) {
  const float pad = 3;
  float avail = x1 - x0 - 2 * pad;
  if (avail < ImGui::GetFontSize() * 1.2f || text.empty()) return;
  float y = y_mid - ImGui::GetFontSize() * 0.5f;
  const char* b = text.data();
  const char* e = b + text.size();
  if (ImGui::CalcTextSize(b, e).x <= avail) {
    dl->AddText(ImVec2(x0 + pad, y), color, b, e);
    return;
  }
  float dots = ImGui::CalcTextSize("...").x;
  // Longest prefix that fits with the dots (binary search on the length).
  size_t lo = 0, hi = text.size();
  while (lo < hi) {
    size_t mid = (lo + hi + 1) / 2;
    if (ImGui::CalcTextSize(b, b + mid).x + dots <= avail)
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo < 2) return;
  std::string s(text.substr(0, lo));
  s += "...";
  dl->AddText(ImVec2(x0 + pad, y), color, s.c_str());
}

void drawHatch(ImDrawList* dl, ImVec2 a, ImVec2 b, float view_x0, float view_x1, ImU32 color, float spacing) {
  const float h = b.y - a.y;
  const float x0 = std::max(a.x, view_x0 - h), x1 = std::min(b.x, view_x1);
  if (x1 <= x0 || h <= 0 || spacing <= 0) return;
  dl->PushClipRect(ImVec2(std::max(a.x, view_x0), a.y), ImVec2(x1, b.y), true);
  // Lines at fixed offsets from the rectangle's start, so they move with it.
  for (float x = a.x + std::floor((x0 - a.x) / spacing) * spacing; x < x1; x += spacing)
    dl->AddLine(ImVec2(x, b.y), ImVec2(x + h, a.y), color);
  dl->PopClipRect();
}

}  // namespace fuselab::ui
