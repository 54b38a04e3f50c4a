#include "ui/RooflineFrame.h"

#include <string>

#include "ui/layout/LogAxis.h"

namespace fuselab::ui {

void drawRooflineFrame(ImDrawList* dl, const RooflinePlot& plot, float left, float top, float right, float bottom,
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
}

}  // namespace fuselab::ui
