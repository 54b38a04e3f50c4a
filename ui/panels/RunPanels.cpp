#include "ui/panels/RunPanels.h"

#include <imgui.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "profiling/trace/DurationText.h"

namespace fuselab::ui {

void RunPanels::setRun(std::shared_ptr<const RunView> run, TimelineView& timeline) {
  run_ = std::move(run);
  rows_.clear();
  collective_order_.clear();
  rank_order_.clear();
  if (!run_) return;
  const RunAnalysis& a = *run_->analysis;
  rows_ = buildRankActivity(*run_->run, a);
  // Every rank's span on the aligned axis, whether its events are loaded or not.
  begin_ns_ = static_cast<double>(alignedBeginNs(a));
  end_ns_ = begin_ns_;
  for (size_t p = 0; p < a.ranks.size(); ++p)
    if (a.ranks[p].events > 0) end_ns_ = std::max(end_ns_, double(a.ranks[p].end_ns + a.alignment.offsets_ns[p]));
  const auto& collectives = run_->analysis->collectives;
  collective_order_.resize(collectives.size());
  std::iota(collective_order_.begin(), collective_order_.end(), 0u);
  rank_order_.resize(run_->analysis->ranks.size());
  std::iota(rank_order_.begin(), rank_order_.end(), 0u);

  std::vector<TimelineView::CollectiveLink> links;
  links.reserve(collectives.size());
  for (const CollectiveStats& s : collectives) {
    TimelineView::CollectiveLink l;
    for (const CollectiveArrival& arrival : s.arrivals) {  // the late one marked when its rank is loaded
      const std::optional<EventRef> e = run_->mergedEvent(arrival.rank_pos, arrival.event);
      if (!e) continue;  // that rank's lanes are not loaded
      if (arrival.rank_pos == s.late_pos) l.late = l.events.size();
      l.events.push_back(*e);
    }
    if (l.events.empty()) continue;
    l.begin_ns = static_cast<double>(s.start_ns);
    l.end_ns = static_cast<double>(s.end_ns);
    links.push_back(std::move(l));
  }
  timeline.setCollectiveLinks(std::move(links));
  timeline.setNcclChannels(ncclChannelsOnLanes(*run_));
}

std::optional<EventRef> RunPanels::lateArrival(size_t i) const {
  const CollectiveStats& s = run_->analysis->collectives.at(i);
  for (const CollectiveArrival& a : s.arrivals)
    if (a.rank_pos == s.late_pos) return run_->mergedEvent(a.rank_pos, a.event);
  return std::nullopt;
}

void RunPanels::showRank(size_t pos, TimelineView& timeline) {
  if (pos >= run_->run->ranks.size()) return;
  if (run_->hasLanes(pos) || !run_->eventsDropped())
    timeline.scrollToRank(run_->run->ranks[pos].rank);
  else
    lanes_request_ = pos;
}

std::optional<AlignMethod> RunPanels::drawSummary(const Theme& th, TimelineView& timeline) {
  if (!run_) return std::nullopt;
  const Run& run = *run_->run;
  const RunAnalysis& a = *run_->analysis;
  ImGui::Text("Run: %zu of %d ranks%s%s", run.ranks.size(), run.world_size, run.backend.empty() ? "" : ", ",
              run.backend.c_str());
  if (!run.missing_ranks.empty()) ImGui::TextDisabled("%zu ranks missing", run.missing_ranks.size());
  for (const std::string& w : run.warnings) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(th.late_arrival));
    ImGui::TextWrapped("%s", w.c_str());
    ImGui::PopStyleColor();
  }
  std::optional<AlignMethod> picked;
  const char* names[] = {"none", "epoch", "collectives"};
  int current = static_cast<int>(a.alignment.method);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  if (ImGui::Combo("Alignment", &current, names, 3) && current != static_cast<int>(a.alignment.method))
    picked = static_cast<AlignMethod>(current);
  ImGui::TextDisabled("residual skew %s over %zu collectives", formatDuration(a.alignment.residual_skew_ns).c_str(),
                      a.alignment.collectives_used);
  if (!a.alignment.note.empty()) ImGui::TextWrapped("%s", a.alignment.note.c_str());
  if (run_->eventsDropped()) {
    ImGui::TextWrapped("Too large to hold whole: %s. The figures cover every rank; the timeline shows the %zu "
                       "rank(s) whose lanes you load (Ranks table, or click the strip). No critical path.",
                       run_->dropped_reason.c_str(), run_->lanes.size());
  }
  ImGui::Spacing();
  if (a.stragglers.empty()) {
    ImGui::TextDisabled("No rank arrived last at a collective.");
  } else {
    ImGui::TextUnformatted("Stragglers (click: show the rank)");
    for (size_t i = 0; i < a.stragglers.size() && i < 5; ++i) {
      const Straggler& s = a.stragglers[i];
      std::string line = "rank " + std::to_string(s.rank) + ": last " + std::to_string(s.late_count) + "x, held up " +
                         formatDuration(s.wait_caused_ns);
      ImGui::PushID(static_cast<int>(i));
      if (ImGui::Selectable(line.c_str())) showRank(static_cast<size_t>(run.indexOfRank(s.rank)), timeline);
      ImGui::PopID();
    }
  }
  return picked;
}

}  // namespace fuselab::ui
