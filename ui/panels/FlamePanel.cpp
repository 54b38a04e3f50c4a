#include "ui/panels/FlamePanel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "profiling/trace/DurationText.h"
#include "ui/lanes/LaneDrawing.h"

namespace fuselab::ui {

namespace {

std::string share(int64_t ns, int64_t of) { return formatPercent(of > 0 ? double(ns) / double(of) : 0.0); }

// Red for slower, blue for faster, deeper with the size of the change;
// grey when the change is within the noise (NaN).
ImU32 changeColor(float change) {
  if (std::isnan(change)) return IM_COL32(150, 150, 150, 255);
  const float k = std::clamp(std::fabs(change), 0.0f, 1.0f);
  const int fade = int(220 - 150 * k);
  return change > 0 ? IM_COL32(235, fade, fade, 255) : IM_COL32(fade, fade, 235, 255);
}

bool contains(const std::string& text, const std::string& part) {
  if (part.empty()) return true;
  auto lower = [](std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  return lower(text).find(lower(part)) != std::string::npos;
}

void frameTooltip(const Trace& trace, const FlameGraph& g, uint32_t f, FlameMetric metric, const std::vector<float>* change) {
  const FlameFrame& fr = g.frames[f];
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
  ImGui::TextUnformatted(frameLabel(trace, fr).c_str());
  ImGui::PopTextWrapPos();
  ImGui::Separator();
  const int64_t total = fr.total(metric);
  ImGui::Text("%s: %s (%s of all)", metric == FlameMetric::Cpu ? "CPU time" : "GPU time", formatDuration(total).c_str(),
              share(total, g.total(metric)).c_str());
  ImGui::Text("self: %s", formatDuration(fr.self(metric)).c_str());
  if (!g.inverted) {
    ImGui::Text("CPU time %s, GPU time under it %s", formatDuration(fr.cpu_total_ns).c_str(),
                formatDuration(fr.gpu_total_ns).c_str());
  }
  if (fr.count) ImGui::Text("%llu event%s", static_cast<unsigned long long>(fr.count), fr.count == 1 ? "" : "s");
  if (change && f < change->size()) {
    const float c = (*change)[f];
    if (std::isnan(c)) ImGui::TextUnformatted("change: within the noise");
    else ImGui::Text("change: %+.0f%%", double(c) * 100.0);
  }
  ImGui::EndTooltip();
}

}  // namespace

FlameDrawResult drawFlameGraph(const Trace& trace, const FlameGraph& graph, FlameMetric metric, uint32_t zoom,
                               const Theme& theme, const std::string& search, const std::vector<float>* change) {
  FlameDrawResult result;
  const float row_h = std::floor(ImGui::GetFontSize() + 6 * theme.scale);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const std::vector<FlameRect> rects = layoutFlame(graph, metric, zoom, std::max(1.0f, avail.x));
  int rows = 0;
  for (const FlameRect& r : rects) rows = std::max(rows, r.row + 1);
  if (rects.empty()) {
    ImGui::TextDisabled(metric == FlameMetric::Gpu ? "No GPU time in this range." : "No CPU time in this range.");
    return result;
  }
  ImGui::BeginChild("##flame_area", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##flame_canvas", ImVec2(std::max(1.0f, avail.x), std::max(row_h * float(rows), 1.0f)));
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const FlameRect* under = hovered ? flameRectAt(rects, mouse.x - origin.x, int((mouse.y - origin.y) / row_h)) : nullptr;
  for (const FlameRect& r : rects) {
    const FlameFrame& fr = graph.frames[r.frame];
    const std::string label = frameLabel(trace, fr);
    ImU32 fill = change && r.frame < change->size() ? changeColor((*change)[r.frame])
                 : (fr.kind == FrameKind::Event || fr.kind == FrameKind::GpuOp) ? eventColor(theme, fr.category, label)
                                                                                  : theme.header_bg;
    if (!search.empty() && !contains(label, search)) fill = withAlpha(fill, 0.25f);
    const ImVec2 a(origin.x + r.x0, origin.y + row_h * float(r.row)), b(origin.x + r.x1, a.y + row_h - 1);
    dl->AddRectFilled(a, ImVec2(std::max(b.x - 1, a.x + 1), b.y), fill);
    if (!search.empty() && contains(label, search)) dl->AddRect(a, b, theme.selection, 0, 0, 1.5f * theme.scale);
    if (&r == under) dl->AddRect(a, b, theme.hover, 0, 0, 2 * theme.scale);
    if (b.x - a.x > ImGui::GetFontSize() * 1.5f) drawFittedText(dl, a.x + 2, b.x - 2, (a.y + b.y) * 0.5f, textColorOn(theme, fill), label);
  }
  if (under) {
    frameTooltip(trace, graph, under->frame, metric, change);
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) result.clicked = under->frame;
  }
  ImGui::EndChild();
  return result;
}

void FlamePanel::drawTab(const Trace* trace, const TraceAnalysis* analysis, const Theme& theme, TimelineView& timeline) {
  if (!trace) return;
  if (!ImGui::BeginTabItem("Flame graph")) return;
  drawContent(*trace, analysis, theme, timeline);
  ImGui::EndTabItem();
}

void FlamePanel::rebuildIfNeeded(const Trace& trace, const TraceAnalysis* analysis, const TimelineView& timeline) {
  double begin = 0, end = 0;
  if (follow_view_) {
    begin = timeline.axis().start_ns;
    end = timeline.axis().endNs();
  } else if (analysis) {
    begin = double(analysis->scope.start_ns);
    end = double(analysis->scope.end_ns);
  } else {
    begin = double(trace.beginNs());
    end = double(trace.endNs());
  }
  const bool same_source = built_for_ == &trace && built_with_ == analysis && built_follow_ == follow_view_;
  const double moved = std::fabs(begin - built_begin_) + std::fabs(end - built_end_);
  const double now = ImGui::GetTime();
  // While the view pans and zooms, rebuild at most a few times a second.
  const bool range_changed = moved > 0.002 * std::max(1.0, end - begin) && now - last_build_time_ > 0.25;
  bool rebuilt = false;
  if (!same_source || (follow_view_ && range_changed)) {
    FlameGraphRange range{int64_t(begin), int64_t(end), {}};
    if (!follow_view_ && analysis) range.gpu_ops = analysis->scope.gpu_ops;
    graph_ = buildFlameGraph(trace, range);
    built_for_ = &trace;
    built_with_ = analysis;
    built_follow_ = follow_view_;
    built_begin_ = begin;
    built_end_ = end;
    last_build_time_ = now;
    rebuilt = true;
  }
  if (rebuilt || built_inverted_ != inverted_ || (inverted_ && built_metric_ != metric_)) {
    shown_ = inverted_ ? invertFlameGraph(graph_, metric_) : graph_;
    built_inverted_ = inverted_;
    built_metric_ = metric_;
    zoom_ = 0;
  }
}

void FlamePanel::drawContent(const Trace& trace, const TraceAnalysis* analysis, const Theme& theme, TimelineView& timeline) {
  int metric = metric_ == FlameMetric::Cpu ? 0 : 1;
  ImGui::RadioButton("CPU time", &metric, 0);
  ImGui::SameLine();
  ImGui::RadioButton("GPU time", &metric, 1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Each GPU op under the stack of the CPU call that launched it");
  metric_ = metric == 0 ? FlameMetric::Cpu : FlameMetric::Gpu;
  ImGui::SameLine(0, 16);
  ImGui::Checkbox("Inverted", &inverted_);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Bottom-up: where the time was spent on top, its callers below");
  ImGui::SameLine(0, 16);
  ImGui::Checkbox("Follow the timeline's view", &follow_view_);
  ImGui::SameLine(0, 16);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
  ImGui::InputTextWithHint("##flame_search", "search", search_, sizeof search_);
  rebuildIfNeeded(trace, analysis, timeline);
  if (zoom_ != 0) {
    ImGui::SameLine(0, 16);
    if (ImGui::Button("Reset zoom")) {
      zoom_ = 0;
      timeline.highlightName(0);
    }
  }
  ImGui::SameLine(0, 16);
  const std::string range = follow_view_ ? "the timeline's view"
                            : analysis && analysis->scope.from_steps ? "the captured steps"
                                                                     : "the whole trace";
  ImGui::TextDisabled("%s in all, over %s", formatDuration(shown_.total(metric_)).c_str(), range.c_str());
  if (const uint64_t n = shown_.python_frames_nested_by_time) {
    ImGui::SameLine(0, 16);
    ImGui::TextDisabled("%llu Python frame%s by time", static_cast<unsigned long long>(n), n == 1 ? "" : "s");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Their Python parent id names no caller open around them: they sit where time puts them");
  }
  const FlameDrawResult r = drawFlameGraph(trace, shown_, metric_, zoom_, theme, search_);
  if (r.clicked) {
    // A click on the zoomed frame (or a caller above it) zooms out to it.
    zoom_ = *r.clicked == zoom_ ? shown_.frames[zoom_].parent : *r.clicked;
    const FlameFrame& f = shown_.frames[*r.clicked];
    timeline.highlightName(f.kind == FrameKind::Event || f.kind == FrameKind::GpuOp ? f.name_id : 0);
  }
}

}  // namespace fuselab::ui
