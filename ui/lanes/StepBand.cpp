#include "ui/lanes/StepBand.h"

#include <algorithm>
#include <string>

#include "profiling/trace/DurationText.h"
#include "ui/lanes/LaneDrawing.h"

namespace fuselab::ui {

void StepBand::prepare(const LaneFrame& f) {
  stepMarks(steps_, *f.axis, 3.0f, marks_);
  // Never closer than 2 px, so 21,300 steps at fit-all leave the events visible.
  stepLines(marks_, *f.axis, 2.0f * f.theme->scale, lines_);
}

void StepBand::drawBackground(const LaneFrame& f) const { f.dl->AddRectFilled(f.win_min, f.win_max, f.theme->label_bg); }

void StepBand::drawLabel(const LaneFrame& f) const {
  f.dl->AddText(ImVec2(f.win_min.x + 6, f.win_min.y + (f.win_max.y - f.win_min.y - ImGui::GetFontSize()) * 0.5f),
                f.theme->text_dim, "steps");
}

void StepBand::drawEvents(const LaneFrame& f) const {
  const Theme& th = *f.theme;
  const ImVec2 min = f.win_min, max = f.win_max;
  f.dl->PushClipRect(ImVec2(f.timeX0(), min.y), ImVec2(f.timeX1(), max.y), true);
  for (const StepMark& m : marks_) {
    const StepStats& s = steps_[m.first];
    ImU32 fill = m.folded() ? withAlpha(th.step_band[0], 0.7f) : th.step_band[m.first % 2];
    f.dl->AddRectFilled(ImVec2(m.x0, min.y + 1), ImVec2(std::max(m.x1, m.x0 + 1), max.y - 1), fill, 2);
    std::string label = m.folded() ? std::to_string(m.count) + " steps"
                                   : std::to_string(m.first + 1) + ": " + s.name + "  " + formatDuration(s.wall_ns);
    if (m.x1 - m.x0 > ImGui::GetFontSize())
      drawFittedText(f.dl, m.x0, m.x1, (min.y + max.y) * 0.5f, textColorOn(th, fill), label);
  }
  f.dl->PopClipRect();
}

void StepBand::drawAcross(const LaneFrame& f) const {
  for (float x : lines_) f.dl->AddLine(ImVec2(x, f.win_min.y), ImVec2(x, f.win_max.y), f.theme->step_line, 1.0f);
}

LaneHover StepBand::hover(const LaneFrame& f, ImVec2 mouse) const {
  if (mouse.x < f.timeX0() || mouse.x > f.timeX1() || mouse.y < f.win_min.y || mouse.y > f.win_max.y) return {};
  auto it = std::find_if(marks_.begin(), marks_.end(),
                         [&](const StepMark& m) { return mouse.x >= m.x0 && mouse.x <= std::max(m.x1, m.x0 + 1); });
  if (it == marks_.end() || it->folded()) return {};
  LaneHover h;
  h.lane = this;
  h.step = it->first;
  return h;
}

void StepBand::drawDetails(const Theme& theme, const LaneHover& hover) const {
  (void)theme;
  if (hover.step >= steps_.size()) return;
  const StepStats& s = steps_[hover.step];
  ImGui::BeginTooltip();
  ImGui::Text("%s (step %zu)", s.name.c_str(), hover.step + 1);
  ImGui::Text("wall %s, GPU busy %s, CPU dispatch %s", formatDuration(s.wall_ns).c_str(),
              formatDuration(s.gpu_busy_ns).c_str(), formatDuration(s.cpu_dispatch_ns).c_str());
  ImGui::Text("%llu GPU ops from %llu launches", static_cast<unsigned long long>(s.gpu_ops),
              static_cast<unsigned long long>(s.launches));
  ImGui::TextDisabled("Click fits the step; keys 1..9 do too.");
  ImGui::EndTooltip();
}

}  // namespace fuselab::ui
