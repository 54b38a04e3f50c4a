#include "ui/TimelineView.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "profiling/trace/DurationText.h"
#include "ui/EventTooltip.h"
#include "ui/layout/EventNames.h"

namespace fuselab::ui {

namespace {

ImVec2 add(ImVec2 a, ImVec2 b) { return ImVec2(a.x + b.x, a.y + b.y); }

ImU32 withAlpha(ImU32 c, float alpha_scale) {
  auto a = static_cast<float>((c >> IM_COL32_A_SHIFT) & 0xFF) * std::clamp(alpha_scale, 0.0f, 1.0f);
  return (c & ~IM_COL32_A_MASK) | (static_cast<ImU32>(a) << IM_COL32_A_SHIFT);
}

// Draws `text` inside [x0, x1] (vertically centred on y_mid), shortened with
// "..." when it does not fit; nothing when not even a few letters fit.
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

void legendSwatch(ImU32 color, const char* label, bool stripe = false, ImU32 stripe_color = 0) {
  float h = ImGui::GetTextLineHeight();
  ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  float s = std::floor(h * 0.8f);
  float y = p.y + (h - s) * 0.5f;
  dl->AddRectFilled(ImVec2(p.x, y), ImVec2(p.x + s, y + s), color, 2);
  if (stripe) dl->AddRectFilled(ImVec2(p.x, y + s - std::max(2.0f, s * 0.25f)), ImVec2(p.x + s, y + s), stripe_color);
  ImGui::Dummy(ImVec2(s, h));
  ImGui::SameLine(0, 4);
  ImGui::TextUnformatted(label);
  ImGui::SameLine(0, 12);
}

}  // namespace

void TimelineView::setTrace(std::shared_ptr<const Trace> trace, std::shared_ptr<const TraceAnalysis> analysis) {
  trace_ = std::move(trace);
  links_.clear();
  selected_.reset();
  selected_flows_.clear();
  lane_records_.clear();
  gap_rects_.clear();
  layout_ = {};
  layout_row_height_ = 0;
  label_font_size_ = 0;
  depth_index_ = trace_ ? DepthIndex(*trace_) : DepthIndex();
  trace_begin_ = trace_ ? static_cast<double>(trace_->beginNs()) : 0;
  trace_end_ = trace_ ? static_cast<double>(trace_->endNs()) : 0;
  marker_order_.clear();
  if (trace_) {
    for (uint32_t i = 0; i < trace_->raw_events.size(); ++i) marker_order_.push_back(i);
    std::sort(marker_order_.begin(), marker_order_.end(),
              [&](uint32_t a, uint32_t b) { return trace_->raw_events[a].ts_ns < trace_->raw_events[b].ts_ns; });
  }
  setAnalysis(std::move(analysis));
  pending_scroll_y_ = 0.0f;
  fitAll();
}

void TimelineView::setAnalysis(std::shared_ptr<const TraceAnalysis> analysis) {
  analysis_ = std::move(analysis);
  gap_index_ = analysis_ ? GapIndex(analysis_->gaps) : GapIndex();
}

void TimelineView::fitAll() {
  if (!trace_) return;
  pending_ = Pending{trace_begin_, trace_end_, 0.01};
}

bool TimelineView::fitStep(size_t ordinal) {
  if (!analysis_ || ordinal >= analysis_->steps.size()) return false;
  const StepStats& s = analysis_->steps[ordinal];
  pending_ = Pending{static_cast<double>(s.start_ns), static_cast<double>(s.end_ns), 0.02};
  return true;
}

void TimelineView::showRange(double begin_ns, double end_ns) {
  if (end_ns <= begin_ns) return;
  pending_ = Pending{begin_ns, end_ns, 0};
}

void TimelineView::select(std::optional<EventRef> event, bool reveal) {
  if (event && (!trace_ || event->track >= trace_->tracks.size() ||
                event->index >= trace_->tracks[event->track].size()))
    event.reset();
  selected_ = event;
  selected_flows_ = (trace_ && event) ? flowsForEvent(*trace_, *event) : std::vector<FlowLink>{};
  if (event && reveal) revealEvent(*event);
}

bool TimelineView::findNext(std::string_view name, bool reveal) {
  if (!trace_) return false;
  auto id = trace_->strings.find(name);
  if (!id) return false;
  // Candidates in time order; the first one after the current selection wins.
  std::optional<EventRef> first, next;
  int64_t first_start = 0, next_start = 0;
  int64_t after = -1;
  std::optional<EventRef> current = selected_;
  if (current) after = trace_->tracks[current->track].start_ns[current->index];
  for (uint32_t ti = 0; ti < trace_->tracks.size(); ++ti) {
    const Track& t = trace_->tracks[ti];
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (t.name_id[i] != *id) continue;
      EventRef e{ti, i};
      int64_t s = t.start_ns[i];
      if (!first || s < first_start) first = e, first_start = s;
      bool later = current && (s > after || (s == after && (ti > current->track || (ti == current->track && i > current->index))));
      if (later && (!next || s < next_start)) next = e, next_start = s;
    }
  }
  std::optional<EventRef> pick = next ? next : first;
  if (!pick) return false;
  select(pick, reveal);
  return true;
}

void TimelineView::revealEvent(EventRef e) {
  const Track& t = trace_->tracks[e.track];
  double s = static_cast<double>(t.start_ns[e.index]);
  double d = static_cast<double>(t.dur_ns[e.index]);
  // The range on screen, or the one about to be (a fit not drawn yet).
  double begin = axis_.start_ns, end = axis_.endNs();
  if (pending_) {
    double pad = (pending_->end - pending_->begin) * pending_->margin;
    begin = pending_->begin - pad;
    end = pending_->end + pad;
  }
  double view = end - begin;
  if (d > view * 0.8 || view <= 0) {
    pending_ = Pending{s, s + std::max(d, 1.0), 0.1};
  } else if (s < begin || s + d > end) {
    double mid = s + d / 2;
    pending_ = Pending{mid - view / 2, mid + view / 2, 0};
  }
  if (const Lane* lane = layout_.laneOfTrack(e.track))
    pending_scroll_y_ = std::max(0.0f, layout_.rowTop(*lane, t.depth[e.index]) - 3 * layout_.row_height);
}

std::optional<ImVec2> TimelineView::screenCenterOf(EventRef e) const {
  if (!trace_ || e.track >= trace_->tracks.size() || e.index >= trace_->tracks[e.track].size()) return std::nullopt;
  const Lane* lane = layout_.laneOfTrack(e.track);
  if (!lane) return std::nullopt;
  const Track& t = trace_->tracks[e.track];
  double mid = static_cast<double>(t.start_ns[e.index]) + static_cast<double>(t.dur_ns[e.index]) / 2;
  ImVec2 p(axis_.nsToX(mid), lanes_origin_.y + layout_.rowCenter(*lane, t.depth[e.index]));
  if (p.x < lanes_clip_min_.x || p.x > lanes_clip_max_.x || p.y < lanes_clip_min_.y || p.y > lanes_clip_max_.y)
    return std::nullopt;
  return p;
}

double TimelineView::maxNsPerPx() const {
  double span = trace_ ? trace_end_ - trace_begin_ : 1e9;
  return std::max(span, 1000.0) * 2 / std::max(axis_.width_px, 1.0f);
}

void TimelineView::rebuildLayout(float row_height) {
  LaneLayoutOptions o;
  o.row_height = row_height;
  o.lane_padding = std::floor(row_height * 0.2f);
  o.header_height = std::floor(row_height * 1.1f);
  o.collapsed_ranks = collapsed_ranks_;
  layout_ = layoutLanes(*trace_, o);
  layout_row_height_ = row_height;
  lane_records_.assign(layout_.lanes.size(), LaneRecords{});
}

float TimelineView::labelWidth() const { return label_width_; }

void TimelineView::drawEmpty(const Theme& th) {
  ImVec2 p = ImGui::GetCursorScreenPos();
  ImVec2 size = ImGui::GetContentRegionAvail();
  rect_min_ = p;
  rect_max_ = add(p, size);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p, rect_max_, th.canvas_bg);
  const char* lines[] = {
      "No trace loaded",
      "",
      "File > Open trace...  (a torch.profiler .json or .json.gz)",
      "or drop a trace file onto this window,",
      "or run a capture from the Workbench.",
  };
  float lh = ImGui::GetTextLineHeightWithSpacing();
  float y = p.y + size.y * 0.5f - lh * 2.5f;
  for (size_t i = 0; i < std::size(lines); ++i) {
    float w = ImGui::CalcTextSize(lines[i]).x;
    dl->AddText(ImVec2(p.x + (size.x - w) * 0.5f, y), i == 0 ? th.label_text : th.text_dim, lines[i]);
    y += lh;
  }
  ImGui::Dummy(size);
}

void TimelineView::drawToolbar(const Theme& th) {
  if (ImGui::Button("Fit all (F)")) fitAll();
  if (analysis_ && !analysis_->steps.empty()) {
    ImGui::SameLine();
    ImGui::TextUnformatted("Step:");
    for (size_t i = 0; i < analysis_->steps.size() && i < 9; ++i) {
      ImGui::SameLine(0, 4);
      std::string label = std::to_string(i + 1) + "##step" + std::to_string(i);
      if (ImGui::Button(label.c_str())) fitStep(i);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s (key %zu)", analysis_->steps[i].name.c_str(), i + 1);
    }
  }
  ImGui::SameLine(0, 16);
  double origin = trace_begin_;
  std::string range = "View " + formatDuration(std::llround(axis_.start_ns - origin)) + " - " +
                      formatDuration(std::llround(axis_.endNs() - origin)) + "  (" +
                      formatDuration(std::llround(axis_.endNs() - axis_.start_ns)) + " wide)";
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(th.text_dim), "%s", range.c_str());
  if (selected_) {
    ImGui::SameLine(0, 16);
    const Track& t = trace_->tracks[selected_->track];
    std::string sel = "Selected: " + shortEventName(trace_->name(*selected_)) + "  " +
                      formatDuration(t.dur_ns[selected_->index]);
    if (!selected_flows_.empty()) sel += "  (" + std::to_string(selected_flows_.size()) + " flow" +
                                         (selected_flows_.size() == 1 ? ")" : "s)");
    ImGui::TextUnformatted(sel.c_str());
  }

  // Legend: what the colours mean.
  legendSwatch(th.user_annotation, "annotation");
  legendSwatch(th.cpu_op, "CPU op");
  legendSwatch(th.launch, "launch call");
  legendSwatch(th.sync_call, "sync");
  legendSwatch(th.kernel, "kernel");
  legendSwatch(th.memcpy, "memcpy");
  legendSwatch(th.memset, "memset");
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(th.text_dim), "| GPU idle:");
  ImGui::SameLine(0, 8);
  legendSwatch(th.gap[static_cast<int>(GapCause::HostWait)], "host wait");
  legendSwatch(th.gap[static_cast<int>(GapCause::KernelWait)], "kernel wait");
  legendSwatch(th.gap[static_cast<int>(GapCause::Other)], "other");
  legendSwatch(th.gap[static_cast<int>(GapCause::Other)], "under a sync call", true, th.gap_sync_mark);
  ImGui::NewLine();
}

void TimelineView::drawRuler(const Theme& th, ImDrawList* dl, ImVec2 min, ImVec2 max, const Ruler& ruler) {
  dl->AddRectFilled(min, max, th.ruler_bg);
  dl->PushClipRect(ImVec2(axis_.origin_px, min.y), ImVec2(axis_.origin_px + axis_.width_px, max.y), true);
  float fs = ImGui::GetFontSize();
  for (const RulerTick& t : ruler.ticks) {
    float len = t.major ? (max.y - min.y) * 0.45f : (max.y - min.y) * 0.2f;
    dl->AddLine(ImVec2(std::round(t.x) + 0.5f, max.y - len), ImVec2(std::round(t.x) + 0.5f, max.y), th.ruler_tick);
    if (t.major) dl->AddText(ImVec2(t.x + 3, min.y + 2), th.label_text, t.label.c_str());
  }
  drawMarkers(th, dl, min, max);
  dl->PopClipRect();
  dl->AddText(ImVec2(min.x + 6, min.y + (max.y - min.y - fs) * 0.5f), th.text_dim, "time since trace start");
  dl->AddLine(ImVec2(min.x, max.y - 0.5f), ImVec2(max.x, max.y - 0.5f), th.ruler_tick);
}

void TimelineView::drawMarkers(const Theme& th, ImDrawList* dl, ImVec2 min, ImVec2 max) {
  // Instant and other non-slice events ("Iteration Start", counters): small
  // triangles under the ruler, at most one per pixel.
  const auto& raw = trace_->raw_events;
  auto first = std::lower_bound(marker_order_.begin(), marker_order_.end(), axis_.start_ns,
                                [&](uint32_t i, double t) { return static_cast<double>(raw[i].ts_ns) < t; });
  const float s = std::floor(4 * th.scale);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const RawEvent* hovered = nullptr;
  float last_x = -1e9f;
  for (auto it = first; it != marker_order_.end(); ++it) {
    const RawEvent& e = raw[*it];
    float x = std::round(axis_.nsToX(static_cast<double>(e.ts_ns)));
    if (x > axis_.origin_px + axis_.width_px) break;
    if (x == last_x) continue;
    last_x = x;
    dl->AddTriangleFilled(ImVec2(x - s, max.y - s - 1), ImVec2(x + s, max.y - s - 1), ImVec2(x, max.y - 1), th.flow);
    if (std::fabs(mouse.x - x) <= s && mouse.y >= max.y - 2 * s - 2 && mouse.y <= max.y) hovered = &e;
  }
  (void)min;
  if (hovered && ImGui::IsWindowHovered()) {
    ImGui::BeginTooltip();
    ImGui::Text("%s", std::string(trace_->strings.get(hovered->name_id)).c_str());
    ImGui::TextDisabled("'%c' event at +%s", hovered->phase,
                        formatDuration(static_cast<int64_t>(std::llround(static_cast<double>(hovered->ts_ns) - trace_begin_))).c_str());
    ImGui::EndTooltip();
  }
}

void TimelineView::drawStepBand(const Theme& th, ImDrawList* dl, ImVec2 min, ImVec2 max) {
  dl->AddRectFilled(min, max, th.label_bg);
  dl->AddText(ImVec2(min.x + 6, min.y + (max.y - min.y - ImGui::GetFontSize()) * 0.5f), th.text_dim, "steps");
  dl->PushClipRect(ImVec2(axis_.origin_px, min.y), ImVec2(axis_.origin_px + axis_.width_px, max.y), true);
  const auto& steps = analysis_->steps;
  stepMarks(steps, axis_, 3.0f, step_marks_);
  for (const StepMark& m : step_marks_) {
    const StepStats& s = steps[m.first];
    ImU32 fill = m.folded() ? withAlpha(th.step_band[0], 0.7f) : th.step_band[m.first % 2];
    dl->AddRectFilled(ImVec2(m.x0, min.y + 1), ImVec2(std::max(m.x1, m.x0 + 1), max.y - 1), fill, 2);
    std::string label = m.folded() ? std::to_string(m.count) + " steps"
                                   : std::to_string(m.first + 1) + ": " + s.name + "  " + formatDuration(s.wall_ns);
    if (m.x1 - m.x0 > ImGui::GetFontSize()) drawFittedText(dl, m.x0, m.x1, (min.y + max.y) * 0.5f, textColorOn(th, fill), label);
  }
  dl->PopClipRect();
}

void TimelineView::draw(const Theme& th) {
  if (!trace_) {
    drawEmpty(th);
    return;
  }
  const float fs = ImGui::GetFontSize();
  const float row_h = std::floor(fs + 6 * th.scale);
  if (row_h != layout_row_height_) rebuildLayout(row_h);
  if (pending_rank_) {
    if (const LaneGroupHeader* h = layout_.rankHeader(*pending_rank_)) pending_scroll_y_ = h->top;
    pending_rank_.reset();
  }
  if (label_font_size_ != fs) {
    float widest = ImGui::CalcTextSize("time since trace start").x;
    for (const Lane& l : layout_.lanes) widest = std::max(widest, ImGui::CalcTextSize(l.label.c_str()).x);
    label_width_ = std::floor(std::clamp(widest + 16 * th.scale, 120 * th.scale, 320 * th.scale));
    label_font_size_ = fs;
  }

  rect_min_ = ImGui::GetCursorScreenPos();
  drawToolbar(th);

  ImVec2 origin = ImGui::GetCursorScreenPos();
  ImVec2 avail = ImGui::GetContentRegionAvail();
  rect_max_ = add(origin, avail);
  if (avail.x < 100 || avail.y < 3 * row_h) {
    ImGui::Dummy(avail);
    return;
  }
  const bool have_steps = analysis_ && !analysis_->steps.empty();
  const float ruler_h = std::floor(fs + 10 * th.scale);
  const float step_h = have_steps ? std::floor(fs + 6 * th.scale) : 0;
  const float lanes_h = avail.y - ruler_h - step_h;
  const float scrollbar_w = layout_.total_height > lanes_h ? ImGui::GetStyle().ScrollbarSize : 0;

  axis_.origin_px = origin.x + label_width_;
  axis_.width_px = std::max(10.0f, avail.x - label_width_ - scrollbar_w);
  if (pending_) {
    axis_.fitWithMargin(pending_->begin, pending_->end, pending_->margin);
    pending_.reset();
  }

  ImDrawList* dl = ImGui::GetWindowDrawList();
  Ruler ruler = rulerTicks(axis_, trace_begin_, 90 * th.scale);
  drawRuler(th, dl, origin, ImVec2(origin.x + avail.x, origin.y + ruler_h), ruler);
  step_marks_.clear();
  if (have_steps)
    drawStepBand(th, dl, ImVec2(origin.x, origin.y + ruler_h), ImVec2(origin.x + avail.x, origin.y + ruler_h + step_h));
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + ruler_h + step_h));
  drawLanes(th, ruler, lanes_h);
  handleKeys();
}

void TimelineView::drawLanes(const Theme& th, const Ruler& ruler, float height) {
  ImGuiIO& io = ImGui::GetIO();
  const float width = ImGui::GetContentRegionAvail().x;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::ColorConvertU32ToFloat4(th.canvas_bg));
  ImGui::BeginChild("##lanes", ImVec2(width, height), false, ImGuiWindowFlags_NoScrollWithMouse);
  ImGui::PopStyleColor();
  ImGui::PopStyleVar();
  if (pending_scroll_y_) {
    ImGui::SetScrollY(*pending_scroll_y_);
    pending_scroll_y_.reset();
  }
  const ImVec2 content = ImGui::GetCursorScreenPos();
  const float scroll_y = ImGui::GetScrollY();
  const ImVec2 win_min = ImGui::GetWindowPos();
  const ImVec2 win_max = add(win_min, ImGui::GetWindowSize());
  lanes_origin_ = content;
  lanes_clip_min_ = ImVec2(axis_.origin_px, win_min.y);
  lanes_clip_max_ = ImVec2(axis_.origin_px + axis_.width_px, win_max.y);
  ImGui::InvisibleButton("##canvas", ImVec2(std::max(1.0f, ImGui::GetContentRegionAvail().x),
                                            std::max(layout_.total_height, height)));
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float vis_top = scroll_y, vis_bottom = scroll_y + height;
  const float time_x0 = axis_.origin_px, time_x1 = axis_.origin_px + axis_.width_px;
  auto sy = [&](float layout_y) { return content.y + layout_y; };

  // --- input: zoom, pan, select -------------------------------------------
  if (hovered && io.MouseWheel != 0) {
    if (io.KeyShift)
      ImGui::SetScrollY(std::max(0.0f, scroll_y - io.MouseWheel * 3 * layout_.row_height));
    else if (io.MousePos.x >= time_x0)
      axis_.zoomAround(io.MousePos.x, std::pow(1.25, io.MouseWheel), maxNsPerPx());
  }
  if (ImGui::IsItemActivated()) drag_distance_ = 0;
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 1.0f)) {
    axis_.panPixels(io.MouseDelta.x);
    if (io.MouseDelta.y != 0) ImGui::SetScrollY(std::max(0.0f, scroll_y - io.MouseDelta.y));
    drag_distance_ += std::fabs(io.MouseDelta.x) + std::fabs(io.MouseDelta.y);
  }

  // --- draw records for the lanes on screen --------------------------------
  lane_records_.resize(layout_.lanes.size());
  const FoldOptions fold{3.0f};
  for (size_t i = 0; i < layout_.lanes.size(); ++i) {
    const Lane& lane = layout_.lanes[i];
    LaneRecords& lr = lane_records_[i];
    if (lane.top + lane.height < vis_top || lane.top > vis_bottom) {
      lr.records.clear();
      lr.depth_begin.clear();
      continue;
    }
    foldTrack(lane.track, depth_index_.track(lane.track), axis_, fold, lr);
  }

  std::optional<Hit> hit;
  if (hovered && !ImGui::IsMouseDragging(ImGuiMouseButton_Left, 1.0f) && io.MousePos.x >= time_x0)
    hit = hitTest(layout_, lane_records_, io.MousePos.x, io.MousePos.y - content.y);
  // A press and release on the canvas without dragging is a click.
  const LaneGroupHeader* clicked_header = layout_.headerAt(io.MousePos.y - content.y);
  if (ImGui::IsItemDeactivated() && hovered && drag_distance_ < 3 && clicked_header && clicked_header->rank >= 0) {
    toggleRank(clicked_header->rank);
  } else if (ImGui::IsItemDeactivated() && hovered && drag_distance_ < 3) {
    if (hit && !hit->record.folded())
      select(hit->event());
    else if (hit)  // a folded run: zoom so its events separate
      pending_ = Pending{axis_.xToNs(hit->record.x0), axis_.xToNs(hit->record.x1), 0.1};
    else
      select(std::nullopt);
  }
  if (hovered && hit && !hit->record.folded() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    const Track& t = trace_->tracks[hit->track];
    double s = static_cast<double>(t.start_ns[hit->record.first]);
    pending_ = Pending{s, s + std::max<double>(1, static_cast<double>(t.dur_ns[hit->record.first])), 0.15};
  }

  // --- lane backgrounds and group headers ---------------------------------
  for (size_t i = 0; i < layout_.lanes.size(); ++i) {
    const Lane& lane = layout_.lanes[i];
    if (lane.top + lane.height < vis_top || lane.top > vis_bottom) continue;
    dl->AddRectFilled(ImVec2(win_min.x, sy(lane.top)), ImVec2(win_max.x, sy(lane.top + lane.height)),
                      th.lane_bg[i % 2]);
  }
  for (const LaneGroupHeader& h : layout_.headers) {
    if (h.top + h.height < vis_top || h.top > vis_bottom) continue;
    dl->AddRectFilled(ImVec2(win_min.x, sy(h.top)), ImVec2(win_max.x, sy(h.top + h.height)), th.header_bg);
    dl->AddText(ImVec2(win_min.x + 6, sy(h.top) + (h.height - ImGui::GetFontSize()) * 0.5f), th.header_text,
                headerTitle(h).c_str());
  }

  // --- the time area --------------------------------------------------------
  dl->PushClipRect(ImVec2(time_x0, win_min.y), ImVec2(time_x1, win_max.y), true);
  for (const RulerTick& t : ruler.ticks)
    if (t.major) dl->AddLine(ImVec2(std::round(t.x) + 0.5f, win_min.y), ImVec2(std::round(t.x) + 0.5f, win_max.y), th.grid);

  // Idle gaps behind the GPU events, with their length where it fits.
  std::optional<GapRect> hovered_gap;
  gap_rects_.clear();
  if (analysis_) gapRects(analysis_->gaps, gap_index_, layout_, axis_, gap_rects_);
  for (const GapRect& g : gap_rects_) {
    if (g.y1 < vis_top || g.y0 > vis_bottom) continue;
    ImVec2 a(g.x0, sy(g.y0)), b(std::max(g.x1, g.x0 + 1), sy(g.y1));
    dl->AddRectFilled(a, b, withAlpha(th.gap[static_cast<int>(g.cause)], g.coverage));
    if (g.covered_by_sync) dl->AddRectFilled(ImVec2(a.x, b.y - 3 * th.scale), b, th.gap_sync_mark);
    if (g.count == 1 && g.coverage >= 1) {
      // The length, in the lane's bottom row: where the GPU ops (and so the
      // hole between them) are; annotations sit in the rows above.
      std::string len = formatDuration(analysis_->gaps[g.gap].durationNs());
      float w = ImGui::CalcTextSize(len.c_str()).x;
      const Lane* lane = layout_.laneOfTrack(analysis_->gaps[g.gap].track);
      if (lane && w + 6 < b.x - a.x) {
        float row_mid = sy(layout_.rowCenter(*lane, lane->rows - 1));
        float lo = std::max(a.x, time_x0) + 3, hi = std::min(b.x, time_x1) - w - 3;
        float tx = std::max(lo, std::min((a.x + b.x - w) * 0.5f, hi));  // centred, kept on screen
        dl->AddText(ImVec2(tx, row_mid - ImGui::GetFontSize() * 0.5f), th.label_text, len.c_str());
      }
    }
    if (hovered && !hit && io.MousePos.x >= a.x && io.MousePos.x <= b.x && io.MousePos.y >= a.y &&
        io.MousePos.y <= b.y)
      hovered_gap = g;
  }

  // Step boundaries across all lanes, folded with the step band (drawStepBand
  // ran first this frame): never closer than 2 px, so 21,300 steps at fit-all
  // leave the events visible.
  if (analysis_) {
    stepLines(step_marks_, axis_, 2.0f * th.scale, step_lines_);
    for (float x : step_lines_) dl->AddLine(ImVec2(x, win_min.y), ImVec2(x, win_max.y), th.step_line, 1.0f);
  }

  // Events and folded runs.
  const float fs = ImGui::GetFontSize();
  for (size_t li = 0; li < layout_.lanes.size(); ++li) {
    const Lane& lane = layout_.lanes[li];
    const Track& track = trace_->tracks[lane.track];
    for (const DrawRecord& r : lane_records_[li].records) {
      float y0 = sy(layout_.rowTop(lane, r.depth)) + 1;
      float y1 = y0 + layout_.row_height - 2;
      if (y1 < win_min.y || y0 > win_max.y) continue;
      float x0 = r.x0, x1 = std::max(r.x1, r.x0 + 1);
      std::string_view name = trace_->strings.get(track.name_id[r.first]);
      ImU32 fill = eventColor(th, track.category[r.first], name);
      if (r.folded()) {
        ImU32 folded_fill = withAlpha(fill, 0.55f);
        dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), folded_fill);
        if (x1 - x0 > 4) {
          // A zigzag on top says "several events here".
          float mid = (y0 + y1) * 0.5f;
          for (float x = x0; x < x1; x += 6)
            dl->AddLine(ImVec2(x, mid + 2), ImVec2(std::min(x + 3, x1), mid - 2), withAlpha(th.event_border, 2.0f));
          std::string label = std::to_string(r.count) + " events";
          if (ImGui::CalcTextSize(label.c_str()).x + 8 > x1 - x0) label = std::to_string(r.count);
          drawFittedText(dl, x0, x1, (y0 + y1) * 0.5f, textColorOn(th, fill), label);
        }
        continue;
      }
      dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), fill);
      if (x1 - x0 > 4) dl->AddRect(ImVec2(x0, y0), ImVec2(x1, y1), th.event_border);
      if (x1 - x0 > fs * 1.5f)
        drawFittedText(dl, std::max(x0, time_x0), std::min(x1, time_x1), (y0 + y1) * 0.5f, textColorOn(th, fill),
                       shortEventName(name));
    }
  }

  drawCollectiveLinks(th, dl, content, vis_top, vis_bottom);

  // Selection and its flows.
  auto eventRect = [&](EventRef e, ImVec2& a, ImVec2& b) {
    const Lane* lane = layout_.laneOfTrack(e.track);
    if (!lane) return false;
    const Track& t = trace_->tracks[e.track];
    a = ImVec2(axis_.nsToX(static_cast<double>(t.start_ns[e.index])), sy(layout_.rowTop(*lane, t.depth[e.index])));
    b = ImVec2(std::max(axis_.nsToX(static_cast<double>(t.end_ns(e.index))), a.x + 1), a.y + layout_.row_height);
    return true;
  };
  if (selected_) {
    ImVec2 a, b;
    for (const FlowLink& f : selected_flows_) {
      EventRef other = f.from == *selected_ ? f.to : f.from;
      if (eventRect(other, a, b)) dl->AddRect(ImVec2(a.x - 1, a.y), ImVec2(b.x + 1, b.y), th.flow, 0, 0, 2 * th.scale);
    }
    if (eventRect(*selected_, a, b)) dl->AddRect(ImVec2(a.x - 1, a.y), ImVec2(b.x + 1, b.y), th.selection, 0, 0, 2 * th.scale);
    for (const FlowArrow& fa : flowArrows(*trace_, selected_flows_, layout_, axis_)) {
      ImVec2 p0(fa.x0, sy(fa.y0)), p1(fa.x1, sy(fa.y1));
      float dy = (p1.y - p0.y) * 0.5f;
      dl->AddBezierCubic(p0, ImVec2(p0.x, p0.y + dy), ImVec2(p1.x, p1.y - dy), p1, th.flow, 1.5f * th.scale);
      float s = 5 * th.scale, dir = p1.y >= p0.y ? 1.0f : -1.0f;
      dl->AddTriangleFilled(p1, ImVec2(p1.x - s, p1.y - dir * s * 1.6f), ImVec2(p1.x + s, p1.y - dir * s * 1.6f), th.flow);
      dl->AddCircleFilled(p0, 2.5f * th.scale, th.flow);
    }
  }
  if (hit) {
    float y0 = sy(layout_.rowTop(*layout_.laneOfTrack(hit->track), hit->record.depth));
    dl->AddRect(ImVec2(hit->record.x0 - 1, y0), ImVec2(std::max(hit->record.x1, hit->record.x0 + 1) + 1, y0 + layout_.row_height),
                th.hover, 0, 0, 1.5f);
  }
  dl->PopClipRect();

  // --- lane labels ----------------------------------------------------------
  for (size_t i = 0; i < layout_.lanes.size(); ++i) {
    const Lane& lane = layout_.lanes[i];
    if (lane.top + lane.height < vis_top || lane.top > vis_bottom) continue;
    ImVec2 a(win_min.x, sy(lane.top)), b(time_x0, sy(lane.top + lane.height));
    dl->AddRectFilled(a, b, th.label_bg);
    dl->AddLine(ImVec2(a.x, b.y - 0.5f), ImVec2(b.x, b.y - 0.5f), th.grid);
    dl->PushClipRect(a, ImVec2(b.x - 4, b.y), true);
    dl->AddText(ImVec2(a.x + 8, sy(layout_.rowTop(lane, 0)) + (layout_.row_height - fs) * 0.5f), th.label_text,
                lane.label.c_str());
    if (lane.rows > 1) {
      std::string rows = std::to_string(lane.rows) + " levels";
      if (lane.height >= 2 * layout_.row_height)
        dl->AddText(ImVec2(a.x + 8, sy(layout_.rowTop(lane, 1)) + (layout_.row_height - fs) * 0.5f), th.text_dim,
                    rows.c_str());
    }
    dl->PopClipRect();
  }
  dl->AddLine(ImVec2(time_x0 - 0.5f, win_min.y), ImVec2(time_x0 - 0.5f, win_max.y), th.ruler_tick);

  if (hit)
    drawEventTooltip(th, *hit);
  else if (hovered_gap)
    drawGapTooltip(*hovered_gap);

  ImGui::EndChild();
}

void TimelineView::drawEventTooltip(const Theme& th, const Hit& hit) {
  if (hit.record.folded()) {
    drawFoldedTooltip(*trace_, hit.track, hit.record.first, hit.record.last, hit.record.count);
    return;
  }
  drawEventDetailsTooltip(*trace_, analysis_.get(), hit.event(), th);
}

void TimelineView::drawGapTooltip(const GapRect& rect) {
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
      ImGui::Text("The CPU was blocked in %s during the whole gap.", std::string(trace_->name(*g.sync_call)).c_str());
    ImGui::PopTextWrapPos();
    ImGui::Separator();
    ImGui::Text("after  %s", shortEventName(trace_->name(g.prev_op)).c_str());
    ImGui::Text("before %s", shortEventName(trace_->name(g.next_op)).c_str());
  }
  ImGui::EndTooltip();
}

void TimelineView::handleKeys() {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || io.KeyCtrl || io.KeyAlt || io.KeySuper) return;
  if (!ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows) && !ImGui::IsWindowFocused(ImGuiFocusedFlags_ChildWindows))
    return;
  // The GLFW backend indexes KeysDown by GLFW key codes, which equal the
  // ASCII codes of upper-case letters and digits.
  auto down = [&](char key) { return ImGui::IsKeyDown(key); };
  auto pressed = [&](char key) { return ImGui::IsKeyPressed(key, false); };
  float dt = std::max(io.DeltaTime, 1.0f / 240);
  float anchor = (io.MousePos.x >= axis_.origin_px && io.MousePos.x <= axis_.origin_px + axis_.width_px)
                     ? io.MousePos.x
                     : axis_.origin_px + axis_.width_px * 0.5f;
  if (down('W')) axis_.zoomAround(anchor, std::pow(4.0, dt), maxNsPerPx());
  if (down('S')) axis_.zoomAround(anchor, std::pow(0.25, dt), maxNsPerPx());
  if (down('A')) axis_.panPixels(axis_.width_px * dt);
  if (down('D')) axis_.panPixels(-axis_.width_px * dt);
  if (pressed('F')) fitAll();
  for (char k = '1'; k <= '9'; ++k)
    if (pressed(k)) fitStep(static_cast<size_t>(k - '1'));
}

}  // namespace fuselab::ui
