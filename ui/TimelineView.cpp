#include "ui/TimelineView.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "profiling/trace/DurationText.h"
#include "ui/lanes/LaneDrawing.h"
#include "ui/layout/EventNames.h"

namespace fuselab::ui {

namespace {

ImVec2 add(ImVec2 a, ImVec2 b) { return ImVec2(a.x + b.x, a.y + b.y); }

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
  nccl_channels_.clear();
  selected_.reset();
  selected_flows_.clear();
  highlight_name_ = 0;
  layout_ = {};
  layout_row_height_ = 0;
  label_font_size_ = 0;
  lanes_.setTrace(trace_.get());
  critical_path_.set(nullptr);
  const TraceExtents extents = trace_ ? traceExtents(*trace_, lanes_.beforeRecording()) : TraceExtents{};
  trace_begin_ = static_cast<double>(extents.whole.begin_ns);
  trace_end_ = static_cast<double>(extents.whole.end_ns);
  fit_ = extents.fit;
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
  lanes_.setAnalysis(analysis_.get());
  layout_row_height_ = 0;  // the lanes again at the next draw
}

void TimelineView::fitAll() {
  if (!trace_) return;
  pending_ = Pending{static_cast<double>(fit_.begin_ns), static_cast<double>(fit_.end_ns), 0.01};
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
  if (analysis_)
    for (const DeviceMemory& d : analysis_->memory.devices) o.memory_lanes.push_back(d.device);
  o.memory_lane_height = std::floor(row_height * 3.5f);
  if (show_nccl_channels_) {
    o.sub_rows.assign(trace_->tracks.size(), 0);
    for (const NcclKernelChannels& k : nccl_channels_)
      if (k.kernel.track < o.sub_rows.size())
        o.sub_rows[k.kernel.track] = std::max<uint16_t>(o.sub_rows[k.kernel.track], uint16_t(k.channels.size()));
    o.sub_row_height = std::max(3.0f, std::floor(row_height * 0.3f));
  }
  layout_ = layoutLanes(*trace_, o);
  layout_row_height_ = row_height;
  lanes_.rebuild(layout_, row_height);  // the step band is a row high
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

const StepPath* TimelineView::criticalPathInView() const {
  return critical_path_.stepAt(axis_.start_ns + (axis_.endNs() - axis_.start_ns) / 2);
}

void TimelineView::drawToolbar(const Theme& th) {
  if (ImGui::Button("Fit all (F)")) fitAll();
  if (critical_path_.path()) {
    ImGui::SameLine();
    ImGui::Checkbox("Critical path", &show_critical_path_);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Outline what set each step's time: the chain of CPU ops, launches, kernels and waits\n"
                        "(and collectives across ranks) from the step's start to its end.");
  }
  if (!nccl_channels_.empty()) {
    ImGui::SameLine();
    bool show = show_nccl_channels_;
    if (ImGui::Checkbox("NCCL channels", &show)) showNcclChannels(show);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Under each NCCL kernel, one thin row per channel: when it ran on the GPU\n"
                        "(from the ranks' NCCL side files: fuselab's NCCL profiler plugin).");
  }
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
  const float ruler_h = std::floor(fs + 10 * th.scale);
  const float step_h = lanes_.hasStepBand() ? row_h : 0;
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
  step_band_min_ = step_band_max_ = ImVec2(0, 0);
  if (lanes_.hasStepBand())
    drawStepBand(th, ImVec2(origin.x, origin.y + ruler_h), ImVec2(origin.x + avail.x, origin.y + ruler_h + step_h));
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + ruler_h + step_h));
  drawLanes(th, ruler, lanes_h);
  handleKeys();
}

std::optional<ImVec2> TimelineView::stepCenterOf(size_t ordinal) const {
  if (!analysis_ || ordinal >= analysis_->steps.size() || step_band_max_.y <= step_band_min_.y) return std::nullopt;
  const StepStats& s = analysis_->steps[ordinal];
  float x = axis_.nsToX(static_cast<double>(s.start_ns + s.end_ns) / 2);
  if (x < axis_.origin_px || x > axis_.origin_px + axis_.width_px) return std::nullopt;
  return ImVec2(x, (step_band_min_.y + step_band_max_.y) * 0.5f);
}

void TimelineView::drawStepBand(const Theme& th, ImVec2 min, ImVec2 max) {
  step_band_min_ = min;
  step_band_max_ = max;
  LaneFrame band{&th, ImGui::GetWindowDrawList(), &axis_, &layout_, min.y, min, max, 0, max.y - min.y};
  lanes_.drawStepBand(band);
  ImGui::SetCursorScreenPos(min);
  ImGui::InvisibleButton("##steps", ImVec2(max.x - min.x, max.y - min.y));
  if (!ImGui::IsItemHovered()) return;
  LaneHover hover = lanes_.hoverStepBand(band, ImGui::GetIO().MousePos);
  if (hover.empty()) return;
  if (ImGui::IsItemClicked()) fitStep(hover.step);
  TimelineLanes::drawDetails(th, hover);
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
  const LaneFrame f{&th,     ImGui::GetWindowDrawList(), &axis_, &layout_, content.y, win_min, win_max, scroll_y,
                    scroll_y + height, highlight_name_};

  handleWheelAndDrag(hovered, scroll_y);
  lanes_.prepare(f);
  LaneHover hover;
  if (hovered && !ImGui::IsMouseDragging(ImGuiMouseButton_Left, 1.0f)) hover = lanes_.hover(f, io.MousePos);
  handleClick(hovered, hover);

  lanes_.drawBackgrounds(f);
  f.dl->PushClipRect(ImVec2(f.timeX0(), win_min.y), ImVec2(f.timeX1(), win_max.y), true);
  lanes_.drawTimeArea(f, ruler);
  drawCollectiveLinks(th, f.dl, content, f.vis_top, f.vis_bottom);
  if (show_nccl_channels_) drawNcclChannels(th, f.dl, content, f.vis_top, f.vis_bottom);
  if (show_critical_path_) critical_path_.draw(f, *trace_);
  drawSelection(f);
  TimelineLanes::drawHover(f, hover);
  f.dl->PopClipRect();
  lanes_.drawLabels(f);
  f.dl->AddLine(ImVec2(f.timeX0() - 0.5f, win_min.y), ImVec2(f.timeX0() - 0.5f, win_max.y), th.ruler_tick);
  TimelineLanes::drawDetails(th, hover);
  ImGui::EndChild();
}

void TimelineView::drawSelection(const LaneFrame& f) const {
  if (!selected_) return;
  const Theme& th = *f.theme;
  auto eventRect = [&](EventRef e, ImVec2& a, ImVec2& b) {
    const Lane* lane = layout_.laneOfTrack(e.track);
    if (!lane) return false;
    const Track& t = trace_->tracks[e.track];
    a = ImVec2(axis_.nsToX(static_cast<double>(t.start_ns[e.index])), f.sy(layout_.rowTop(*lane, t.depth[e.index])));
    b = ImVec2(std::max(axis_.nsToX(static_cast<double>(t.end_ns(e.index))), a.x + 1), a.y + layout_.row_height);
    return true;
  };
  ImVec2 a, b;
  for (const FlowLink& fl : selected_flows_) {
    EventRef other = fl.from == *selected_ ? fl.to : fl.from;
    if (eventRect(other, a, b)) f.dl->AddRect(ImVec2(a.x - 1, a.y), ImVec2(b.x + 1, b.y), th.flow, 0, 0, 2 * th.scale);
  }
  if (eventRect(*selected_, a, b))
    f.dl->AddRect(ImVec2(a.x - 1, a.y), ImVec2(b.x + 1, b.y), th.selection, 0, 0, 2 * th.scale);
  for (const FlowArrow& fa : flowArrows(*trace_, selected_flows_, layout_, axis_)) {
    ImVec2 p0(fa.x0, f.sy(fa.y0)), p1(fa.x1, f.sy(fa.y1));
    float dy = (p1.y - p0.y) * 0.5f;
    f.dl->AddBezierCubic(p0, ImVec2(p0.x, p0.y + dy), ImVec2(p1.x, p1.y - dy), p1, th.flow, 1.5f * th.scale);
    float s = 5 * th.scale, dir = p1.y >= p0.y ? 1.0f : -1.0f;
    f.dl->AddTriangleFilled(p1, ImVec2(p1.x - s, p1.y - dir * s * 1.6f), ImVec2(p1.x + s, p1.y - dir * s * 1.6f),
                            th.flow);
    f.dl->AddCircleFilled(p0, 2.5f * th.scale, th.flow);
  }
}

}  // namespace fuselab::ui
