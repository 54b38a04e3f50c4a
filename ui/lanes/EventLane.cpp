#include "ui/lanes/EventLane.h"

#include <algorithm>
#include <string>

#include "ui/EventTooltip.h"
#include "ui/lanes/LaneDrawing.h"
#include "ui/layout/EventNames.h"

namespace fuselab::ui {

EventLane::EventLane(const Trace& trace, const TraceAnalysis* analysis, const PreRecordingOps& before_recording,
                     const LaneLayout& layout, const Lane& lane, const TrackDepths& depths, size_t stripe)
    : trace_(trace),
      analysis_(analysis),
      layout_(layout),
      lane_(lane),
      before_recording_(before_recording),
      depths_(depths),
      stripe_(stripe) {}

bool EventLane::launchedBeforeRecording(uint32_t index) const {
  return isGpuWork(trace_.tracks[lane_.track].category[index]) && before_recording_.contains({lane_.track, index});
}

void EventLane::prepare(const LaneFrame& f) { foldTrack(lane_.track, depths_, *f.axis, FoldOptions{3.0f}, records_); }

void EventLane::drawBackground(const LaneFrame& f) const {
  f.dl->AddRectFilled(ImVec2(f.win_min.x, f.sy(lane_.top)), ImVec2(f.win_max.x, f.sy(bottom())),
                      f.theme->lane_bg[stripe_ % 2]);
}

void EventLane::drawEvents(const LaneFrame& f) const {
  const Theme& th = *f.theme;
  const Track& track = trace_.tracks[lane_.track];
  const float fs = ImGui::GetFontSize();
  for (const DrawRecord& r : records_.records) {
    float y0 = f.sy(layout_.rowTop(lane_, r.depth)) + 1;
    float y1 = y0 + layout_.row_height - 2;
    if (y1 < f.win_min.y || y0 > f.win_max.y) continue;
    float x0 = r.x0, x1 = std::max(r.x1, r.x0 + 1);
    std::string_view name = trace_.strings.get(track.name_id[r.first]);
    ImU32 fill = eventColor(th, track.category[r.first], name);
    if (r.folded()) {
      f.dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), withAlpha(fill, 0.55f));
      if (f.highlight_name && track.name_id[r.first] == f.highlight_name)
        f.dl->AddRect(ImVec2(x0 - 1, y0 - 1), ImVec2(x1 + 1, y1 + 1), th.selection, 0, 0, 2 * th.scale);
      if (x1 - x0 > 4) {
        // A zigzag on top says "several events here".
        float mid = (y0 + y1) * 0.5f;
        for (float x = x0; x < x1; x += 6)
          f.dl->AddLine(ImVec2(x, mid + 2), ImVec2(std::min(x + 3, x1), mid - 2), withAlpha(th.event_border, 2.0f));
        std::string label = std::to_string(r.count) + " events";
        if (ImGui::CalcTextSize(label.c_str()).x + 8 > x1 - x0) label = std::to_string(r.count);
        drawFittedText(f.dl, x0, x1, (y0 + y1) * 0.5f, textColorOn(th, fill), label);
      }
      continue;
    }
    if (launchedBeforeRecording(r.first)) {
      fill = withAlpha(fill, 0.45f);
      f.dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), fill);
      drawHatch(f.dl, ImVec2(x0, y0), ImVec2(x1, y1), f.timeX0(), f.timeX1(), th.event_border, 6 * th.scale);
    } else {
      f.dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), fill);
    }
    if (x1 - x0 > 4) f.dl->AddRect(ImVec2(x0, y0), ImVec2(x1, y1), th.event_border);
    if (f.highlight_name && track.name_id[r.first] == f.highlight_name)
      f.dl->AddRect(ImVec2(x0 - 1, y0 - 1), ImVec2(x1 + 1, y1 + 1), th.selection, 0, 0, 2 * th.scale);
    if (x1 - x0 > fs * 1.5f)
      drawFittedText(f.dl, std::max(x0, f.timeX0()), std::min(x1, f.timeX1()), (y0 + y1) * 0.5f,
                     textColorOn(th, fill), shortEventName(name));
  }
}

void EventLane::drawLabel(const LaneFrame& f) const {
  const Theme& th = *f.theme;
  const float fs = ImGui::GetFontSize();
  ImVec2 a(f.win_min.x, f.sy(lane_.top)), b(f.timeX0(), f.sy(bottom()));
  f.dl->AddRectFilled(a, b, th.label_bg);
  f.dl->AddLine(ImVec2(a.x, b.y - 0.5f), ImVec2(b.x, b.y - 0.5f), th.grid);
  f.dl->PushClipRect(a, ImVec2(b.x - 4, b.y), true);
  f.dl->AddText(ImVec2(a.x + 8, f.sy(layout_.rowTop(lane_, 0)) + (layout_.row_height - fs) * 0.5f), th.label_text,
                lane_.label.c_str());
  if (lane_.rows > 1 && lane_.height >= 2 * layout_.row_height) {
    std::string rows = std::to_string(lane_.rows) + " levels";
    f.dl->AddText(ImVec2(a.x + 8, f.sy(layout_.rowTop(lane_, 1)) + (layout_.row_height - fs) * 0.5f), th.text_dim,
                  rows.c_str());
  }
  f.dl->PopClipRect();
}

LaneHover EventLane::hover(const LaneFrame& f, ImVec2 mouse) const {
  if (mouse.x < f.timeX0()) return {};
  auto hit = hitTestLane(layout_, lane_, records_, mouse.x, mouse.y - f.content_y);
  if (!hit) return {};
  LaneHover h;
  h.lane = this;
  h.event = hit;
  return h;
}

void EventLane::drawHover(const LaneFrame& f, const LaneHover& hover) const {
  if (!hover.event) return;
  const DrawRecord& r = hover.event->record;
  float y0 = f.sy(layout_.rowTop(lane_, r.depth));
  f.dl->AddRect(ImVec2(r.x0 - 1, y0), ImVec2(std::max(r.x1, r.x0 + 1) + 1, y0 + layout_.row_height), f.theme->hover, 0,
                0, 1.5f);
}

void EventLane::drawDetails(const Theme& theme, const LaneHover& hover) const {
  if (!hover.event) return;
  const DrawRecord& r = hover.event->record;
  if (r.folded())
    drawFoldedTooltip(trace_, lane_.track, r.first, r.last, r.count);
  else
    drawEventDetailsTooltip(trace_, analysis_, hover.event->event(), theme, launchedBeforeRecording(r.first));
}

}  // namespace fuselab::ui
