#include "ui/RooflineFrame.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "ui/layout/LogAxis.h"

namespace fuselab::ui {

LabelRect drawRooflineFrame(ImDrawList* dl, const RooflinePlot& plot, float left, float top, float right, float bottom,
                            const Theme& th) {
  const float s = th.scale;
  dl->AddRect(ImVec2(left, top), ImVec2(right, bottom), th.grid);
  for (double t : plot.x.ticks()) {
    const float x = plot.x.toPx(t);
    dl->AddLine(ImVec2(x, top), ImVec2(x, bottom), th.grid);
    const std::string label = formatCount(t);
    dl->AddText(ImVec2(x - ImGui::CalcTextSize(label.c_str()).x / 2, bottom + 3 * s), th.text_dim, label.c_str());
  }
  for (double v : plot.y.ticks()) {
    const float y = plot.y.toPx(v);
    dl->AddLine(ImVec2(left, y), ImVec2(right, y), th.grid);
    const std::string label = formatCount(v);
    const ImVec2 sz = ImGui::CalcTextSize(label.c_str());
    dl->AddText(ImVec2(left - sz.x - 6 * s, y - sz.y / 2), th.text_dim, label.c_str());
  }
  dl->AddText(ImVec2(right - ImGui::CalcTextSize(kRooflineXTitle).x, bottom + 3 * s + ImGui::GetTextLineHeight()),
              th.text_dim, kRooflineXTitle);
  dl->AddText(ImVec2(left + 6 * s, top + 3 * s), th.label_text, kRooflineYTitle);
  const ImVec2 title = ImGui::CalcTextSize(kRooflineYTitle);
  return {left, top, left + 6 * s + title.x, top + 3 * s + title.y};
}

std::string g3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

LabelRect drawPlotText(ImDrawList* dl, ImVec2 at, ImU32 color, const std::string& text) {
  const ImVec2 size = ImGui::CalcTextSize(text.c_str());
  dl->AddText(at, color, text.c_str());
  return {at.x, at.y, at.x + size.x, at.y + size.y};
}

void drawPlacedLabel(ImDrawList* dl, const PlacedLabel& placed, const LabelDisc& point, const std::string& text,
                     ImU32 color, ImU32 leader_color) {
  if (!placed.placed) return;
  const LabelRect& r = placed.rect;
  if (placed.leader)  // to the box's nearest point
    dl->AddLine(ImVec2(point.x, point.y), ImVec2(std::clamp(point.x, r.x0, r.x1), std::clamp(point.y, r.y0, r.y1)),
                leader_color, 1);
  dl->AddText(ImVec2(r.x0, r.y0), color, text.c_str());
}

}  // namespace fuselab::ui
