#include "ui/lanes/MemoryLane.h"

#include <imgui.h>

#include <algorithm>

#include "profiling/analysis/memory/MemoryText.h"
#include "profiling/trace/DurationText.h"
#include "ui/lanes/LaneDrawing.h"

namespace fuselab::ui {

MemoryLane::MemoryLane(const Trace& trace, const DeviceMemory& device, const MemoryLaneSlot& slot, size_t stripe)
    : trace_(trace), device_(device), slot_(slot), stripe_(stripe), folding_(device.curve) {
  scale_bytes_ = std::max<int64_t>(1, std::max(folding_.maxReserved(), folding_.maxAllocated()));
}

float MemoryLane::yOf(const LaneFrame& f, int64_t bytes) const {
  const float pad = 4 * f.theme->scale;
  const float y1 = f.sy(bottom()) - pad, y0 = f.sy(top()) + pad;
  return y1 - (y1 - y0) * float(double(std::max<int64_t>(0, bytes)) / double(scale_bytes_));
}

void MemoryLane::prepare(const LaneFrame& f) {
  const FoldedFor view{f.axis->start_ns, f.axis->ns_per_px, f.axis->origin_px, f.timeX0(), f.timeX1()};
  if (folded_for_ == view) return;
  columns_ = folding_.fold(*f.axis, view.x0, view.x1);
  folded_for_ = view;
}

void MemoryLane::drawBackground(const LaneFrame& f) const {
  f.dl->AddRectFilled(ImVec2(f.win_min.x, f.sy(top())), ImVec2(f.win_max.x, f.sy(bottom())), f.theme->lane_bg[stripe_ % 2]);
}

void MemoryLane::drawEvents(const LaneFrame& f) const {
  const Theme& th = *f.theme;
  const float base = yOf(f, 0);
  for (const MemoryColumn& c : columns_) {
    f.dl->AddRectFilled(ImVec2(c.x0, yOf(f, c.reserved)), ImVec2(c.x1, base), withAlpha(th.memcpy, 0.25f));
    f.dl->AddRectFilled(ImVec2(c.x0, yOf(f, c.allocated)), ImVec2(c.x1, base), withAlpha(th.memcpy, 0.85f));
  }
  // The peak: a mark at its time, with its op when there is room.
  const float x = f.axis->nsToX(double(device_.peak_ns));
  if (x < f.timeX0() || x > f.timeX1()) return;
  const float y = yOf(f, device_.peak_allocated_bytes), s = 5 * th.scale;
  f.dl->AddTriangleFilled(ImVec2(x, y), ImVec2(x - s, y - 1.6f * s), ImVec2(x + s, y - 1.6f * s), th.selection);
  std::string label = "peak " + formatMemoryBytes(device_.peak_allocated_bytes);
  if (device_.peak_op) label += " in " + std::string(trace_.name(*device_.peak_op));
  f.dl->AddText(ImVec2(x + s + 2, f.sy(top()) + 2), th.text, label.c_str());
}

void MemoryLane::drawLabel(const LaneFrame& f) const {
  const Theme& th = *f.theme;
  const float fs = ImGui::GetFontSize();
  const ImVec2 a(f.win_min.x, f.sy(top())), b(f.timeX0(), f.sy(bottom()));
  f.dl->AddRectFilled(a, b, th.label_bg);
  f.dl->AddLine(ImVec2(a.x, b.y - 0.5f), ImVec2(b.x, b.y - 0.5f), th.grid);
  f.dl->PushClipRect(a, ImVec2(b.x - 4, b.y), true);
  f.dl->AddText(ImVec2(a.x + 8, a.y + 4), th.label_text, ("memory " + slot_.label).c_str());
  const std::string scale = "0 - " + formatMemoryBytes(scale_bytes_);
  f.dl->AddText(ImVec2(a.x + 8, a.y + 6 + fs), th.text_dim, scale.c_str());
  f.dl->PopClipRect();
}

LaneHover MemoryLane::hover(const LaneFrame& f, ImVec2 mouse) const {
  if (mouse.x < f.timeX0() || mouse.y < f.sy(top()) || mouse.y >= f.sy(bottom())) return {};
  const int64_t point = folding_.pointAt(f.axis->xToNs(mouse.x));
  if (point < 0) return {};
  LaneHover h;
  h.lane = this;
  h.memory_point = point;
  return h;
}

void MemoryLane::drawHover(const LaneFrame& f, const LaneHover& hover) const {
  if (hover.memory_point < 0) return;
  const float x = f.axis->nsToX(double(device_.curve.ts_ns[size_t(hover.memory_point)]));
  f.dl->AddLine(ImVec2(x, f.sy(top())), ImVec2(x, f.sy(bottom())), f.theme->hover, 1.5f);
}

void MemoryLane::drawDetails(const Theme& theme, const LaneHover& hover) const {
  (void)theme;
  if (hover.memory_point >= 0) drawMemoryPointTooltip(trace_, device_, size_t(hover.memory_point));
}

void drawMemoryPointTooltip(const Trace& trace, const DeviceMemory& device, size_t point) {
  const MemoryCurve& c = device.curve;
  ImGui::BeginTooltip();
  ImGui::Text("%s at %s", device.device.c_str(), formatDuration(c.ts_ns[point] - trace.beginNs()).c_str());
  ImGui::Text("allocated %s, reserved %s", formatMemoryBytes(c.allocated[point]).c_str(),
              formatMemoryBytes(c.reserved[point]).c_str());
  const std::vector<EventRef> stack = stackAt(trace, c.track[point], c.ts_ns[point]);
  if (!stack.empty()) {
    ImGui::Separator();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
    for (size_t k = 0; k < stack.size(); ++k)
      ImGui::Text("%*s%s", int(2 * k), "", std::string(trace.name(stack[k])).c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::EndTooltip();
}

}  // namespace fuselab::ui
