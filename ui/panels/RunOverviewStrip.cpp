// RunPanels::drawOverview (RunPanels.h): the rank x time strip, from the
// cells and runs of ui/layout/RunOverview.h.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "ui/panels/RunPanels.h"

namespace fuselab::ui {

void RunPanels::drawOverview(const Theme& th, TimelineView& timeline) {
  if (!run_ || rows_.empty() || end_ns_ <= begin_ns_) return;
  const float width = ImGui::GetContentRegionAvail().x;
  const float row_h = std::clamp(std::floor(96 * th.scale / float(rows_.size())), 1.0f, 6 * th.scale);
  const float height = std::max(row_h * float(rows_.size()), 12 * th.scale);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##run_overview", ImVec2(std::max(1.0f, width), height));
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();

  const float cell_w = 2 * th.scale;
  const int columns = std::max(1, static_cast<int>(width / cell_w));
  rankActivityCells(rows_, begin_ns_, end_ns_, columns, cells_);
  const float px = width / float(columns);
  activityRuns(cells_, rows_.size(), columns, runs_);
  dl->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + height), th.activity[0]);
  const float rank_h = height / float(rows_.size());
  for (const ActivityRun& run : runs_) {
    const float y0 = origin.y + float(run.row) * rank_h;
    dl->AddRectFilled(ImVec2(origin.x + run.first * px, y0),
                      ImVec2(origin.x + run.end * px, std::max(y0 + rank_h, y0 + 1)),
                      th.activity[static_cast<int>(run.state)]);
  }
  // The timeline's view.
  auto xOf = [&](double t) { return origin.x + float((t - begin_ns_) / (end_ns_ - begin_ns_)) * width; };
  const TimeAxis& axis = timeline.axis();
  dl->AddRect(ImVec2(std::max(origin.x, xOf(axis.start_ns)), origin.y),
              ImVec2(std::min(origin.x + width, xOf(axis.endNs())), origin.y + height), th.selection, 0, 0,
              1.5f * th.scale);

  if (!hovered) return;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const size_t row = std::min(rows_.size() - 1, static_cast<size_t>((mouse.y - origin.y) / height * float(rows_.size())));
  const double t = begin_ns_ + double((mouse.x - origin.x) / width) * (end_ns_ - begin_ns_);
  const bool loaded = run_->hasLanes(row) || !run_->eventsDropped();
  ImGui::SetTooltip(loaded ? "rank %d  (click: show it here)" : "rank %d  (click: load its lanes)", rows_[row].rank);
  if (ImGui::IsItemClicked()) {
    showRank(row, timeline);
    const double half = std::max(1.0, axis.endNs() - axis.start_ns) / 2;
    timeline.showRange(t - half, t + half);
  }
}

}  // namespace fuselab::ui
