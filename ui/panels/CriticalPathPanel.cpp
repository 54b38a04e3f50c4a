#include "ui/panels/CriticalPathPanel.h"

#include <imgui.h>

#include <string>

#include "profiling/trace/DurationText.h"
#include "ui/layout/EventNames.h"

namespace fuselab::ui {

namespace {

std::string share(int64_t ns, int64_t of) {
  return formatPercent(of > 0 ? static_cast<double>(ns) / static_cast<double>(of) : 0.0);
}

}  // namespace

void CriticalPathPanel::drawTab(const Trace* trace, const Theme& theme, TimelineView& timeline) {
  const CriticalPathAnalysis* path = timeline.criticalPath();
  if (!trace || !path || path->steps.empty()) return;
  if (!ImGui::BeginTabItem("Critical path")) return;
  bool shown = timeline.criticalPathShown();
  if (ImGui::Checkbox("Show on the timeline", &shown)) timeline.showCriticalPath(shown);
  const StepPath* step = timeline.criticalPathInView();
  ImGui::SameLine(0, 16);
  ImGui::Text("%s: %s", step->name.c_str(), formatDuration(step->wall_ns).c_str());
  ImGui::SameLine(0, 16);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(theme.text_dim), "(the step in view; pan or press 1-9 for another)");
  std::string kinds;
  for (size_t k = 0; k < kPathKinds; ++k) {
    if (step->by_kind[k] == 0) continue;
    if (!kinds.empty()) kinds += ",  ";
    kinds += std::string(pathKindName(static_cast<PathKind>(k))) + " " + share(step->by_kind[k], step->wall_ns);
  }
  ImGui::TextUnformatted(kinds.c_str());
  if (step->by_rank.size() > 1) {
    std::string ranks = "by rank:";
    for (const auto& [rank, ns] : step->by_rank) ranks += "  " + std::to_string(rank) + " " + share(ns, step->wall_ns);
    ImGui::TextUnformatted(ranks.c_str());
  }
  const float half = ImGui::GetContentRegionAvail().x * 0.6f;
  ImGui::BeginChild("##cp_segments", ImVec2(half, 0));
  drawSegments(*trace, *step, timeline);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("##cp_whatif", ImVec2(0, 0));
  drawWhatIfs(*path);
  ImGui::EndChild();
  ImGui::EndTabItem();
}

void CriticalPathPanel::drawSegments(const Trace& trace, const StepPath& step, TimelineView& timeline) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##segments", 5, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("at", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("time", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("kind", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("rank", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("event");
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(step.segments.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const PathSegment& s = step.segments[static_cast<size_t>(i)];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const std::string at = "+" + formatDuration(s.start_ns - step.start_ns) + "##seg" + std::to_string(i);
      const bool selected = s.event && timeline.selected() == s.event;
      if (ImGui::Selectable(at.c_str(), selected, ImGuiSelectableFlags_SpanAllColumns)) {
        if (s.event)
          timeline.select(*s.event, true);
        else
          timeline.showRange(static_cast<double>(s.start_ns), static_cast<double>(s.start_ns + s.dur_ns));
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(formatDuration(s.dur_ns).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(std::string(pathKindName(s.kind)).c_str());
      ImGui::TableNextColumn();
      if (s.rank >= 0) ImGui::Text("%d", s.rank);
      ImGui::TableNextColumn();
      if (s.event) ImGui::TextUnformatted(shortEventName(trace.name(*s.event)).c_str());
    }
  }
  ImGui::EndTable();
}

void CriticalPathPanel::drawWhatIfs(const CriticalPathAnalysis& path) {
  ImGui::TextUnformatted("If one op were 2x faster (everything else held):");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##whatif", 3, flags)) return;
  ImGui::TableSetupColumn("op");
  ImGui::TableSetupColumn("on the paths", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("steps", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableHeadersRow();
  for (const WhatIf& w : path.what_if) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    std::string op = shortEventName(w.name) + " (" + std::string(pathKindName(w.kind)) + ")";
    if (w.rank >= 0) op = "rank " + std::to_string(w.rank) + ": " + op;
    ImGui::TextUnformatted(op.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatDuration(w.on_path_ns).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatSignedPercent(w.change()).c_str());
  }
  ImGui::EndTable();
}

}  // namespace fuselab::ui
