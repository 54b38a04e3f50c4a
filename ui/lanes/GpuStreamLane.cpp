#include "ui/lanes/GpuStreamLane.h"

#include <algorithm>
#include <string>

#include "profiling/trace/DurationText.h"
#include "ui/EventTooltip.h"
#include "ui/lanes/LaneDrawing.h"
#include "ui/layout/EventNames.h"

namespace fuselab::ui {

GpuStreamLane::GpuStreamLane(const Trace& trace, const TraceAnalysis& analysis, const PreRecordingOps& before_recording,
                             const GapIndex& gap_index, GapIndex::TrackGaps gaps, const LaneLayout& layout,
                             const Lane& lane, const TrackDepths& depths, size_t stripe)
    : EventLane(trace, &analysis, before_recording, layout, lane, depths, stripe), gap_index_(gap_index), gaps_(gaps) {}

void GpuStreamLane::prepare(const LaneFrame& f) {
  EventLane::prepare(f);
  gap_rects_.clear();
  gapRectsOfTrack(analysis_->gaps, gap_index_, gaps_, lane_, *f.axis, gap_rects_);
}

void GpuStreamLane::drawUnder(const LaneFrame& f) const {
  const Theme& th = *f.theme;
  for (const GapRect& g : gap_rects_) {
    ImVec2 a(g.x0, f.sy(g.y0)), b(std::max(g.x1, g.x0 + 1), f.sy(g.y1));
    f.dl->AddRectFilled(a, b, withAlpha(th.gap[static_cast<int>(g.cause)], g.coverage));
    if (g.covered_by_sync) f.dl->AddRectFilled(ImVec2(a.x, b.y - 3 * th.scale), b, th.gap_sync_mark);
    if (g.count != 1 || g.coverage < 1) continue;
    // The length, in the lane's bottom row: where the GPU ops (and so the
    // hole between them) are; annotations sit in the rows above.
    std::string len = formatDuration(analysis_->gaps[g.gap].durationNs());
    float w = ImGui::CalcTextSize(len.c_str()).x;
    if (w + 6 >= b.x - a.x) continue;
    float row_mid = f.sy(layout_.rowCenter(lane_, lane_.rows - 1));
    float lo = std::max(a.x, f.timeX0()) + 3, hi = std::min(b.x, f.timeX1()) - w - 3;
    float tx = std::max(lo, std::min((a.x + b.x - w) * 0.5f, hi));  // centred, kept on screen
    f.dl->AddText(ImVec2(tx, row_mid - ImGui::GetFontSize() * 0.5f), th.label_text, len.c_str());
  }
}

LaneHover GpuStreamLane::hover(const LaneFrame& f, ImVec2 mouse) const {
  LaneHover h = EventLane::hover(f, mouse);
  if (!h.empty()) return h;
  // The last rect drawn under the pointer: the one on top.
  for (auto it = gap_rects_.rbegin(); it != gap_rects_.rend(); ++it) {
    float x1 = std::max(it->x1, it->x0 + 1);
    if (mouse.x >= it->x0 && mouse.x <= x1 && mouse.y >= f.sy(it->y0) && mouse.y <= f.sy(it->y1)) {
      h.lane = this;
      h.gap = *it;
      return h;
    }
  }
  return h;
}

void GpuStreamLane::drawDetails(const Theme& theme, const LaneHover& hover) const {
  if (!hover.gap) {
    EventLane::drawDetails(theme, hover);
    return;
  }
  const GapRect& rect = *hover.gap;
  const GpuGap& g = analysis_->gaps[rect.gap];
  ImGui::BeginTooltip();
  if (rect.count > 1 || rect.coverage < 1) {
    ImGui::Text("%u idle gaps in this pixel column (%.0f%% idle), mostly %s", rect.count, rect.coverage * 100.0,
                std::string(gapCauseLabel(rect.cause)).c_str());
    ImGui::TextUnformatted("Zoom in to see them one by one.");
  } else {
    ImGui::Text("GPU idle: %s", formatDuration(g.durationNs()).c_str());
    ImGui::Text("Cause: %s", std::string(gapCauseLabel(g.cause)).c_str());
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
    ImGui::TextUnformatted(std::string(gapCauseExplanation(g.cause)).c_str());
    if (g.covered_by_sync && g.sync_call)
      ImGui::Text("The CPU was blocked in %s during the whole gap.", std::string(trace_.name(*g.sync_call)).c_str());
    ImGui::PopTextWrapPos();
    ImGui::Separator();
    ImGui::Text("after  %s", shortEventName(trace_.name(g.prev_op)).c_str());
    ImGui::Text("before %s", shortEventName(trace_.name(g.next_op)).c_str());
  }
  ImGui::EndTooltip();
}

}  // namespace fuselab::ui
