// RunPanels' tables (RunPanels.h): the collectives matched across ranks and
// the per-rank figures; sortable, a click selects on the timeline.
#include <imgui.h>

#include <cstdio>
#include <string>

#include "profiling/trace/DurationText.h"
#include "ui/panels/RunPanels.h"
#include "ui/TableSort.h"

namespace fuselab::ui {

namespace {

constexpr ImGuiTableFlags kTableFlags = ImGuiTableFlags_Sortable | ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders |
                                        ImGuiTableFlags_Resizable | ImGuiTableFlags_ScrollY |
                                        ImGuiTableFlags_SizingFixedFit;

std::string bytesText(int64_t bytes) {
  if (bytes < 0) return "-";
  char buf[32];
  if (bytes >= (int64_t(1) << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", double(bytes) / double(1 << 30));
  else if (bytes >= (1 << 20)) std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / double(1 << 20));
  else if (bytes >= (1 << 10)) std::snprintf(buf, sizeof buf, "%.1f KiB", double(bytes) / double(1 << 10));
  else std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  return buf;
}

std::string causeText(const ArrivalCause& c) {
  switch (c.kind) {
    case ArrivalCauseKind::Kernel: return "GPU: " + c.name;
    case ArrivalCauseKind::CpuOp: return "CPU: " + c.name;
    case ArrivalCauseKind::Idle: return "idle " + formatDuration(c.idle_ns) + " after " + c.name;
    case ArrivalCauseKind::Unknown: return "-";
  }
  return "-";
}

void textCell(const std::string& s) {
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(s.c_str());
}

// Algorithm and protocol, channels (and warps on hover), the median channel
// time with its spread on hover.
void drawNcclCells(const CollectiveStats& s) {
  if (!s.nccl) {
    for (int i = 0; i < 3; ++i) textCell("-");
    return;
  }
  const NcclCollectiveFigures& f = *s.nccl;
  textCell(f.algo + " " + f.proto);
  textCell(std::to_string(f.channels));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%d channels of %d warps, from %d rank(s)' side files", f.channels, f.warps, f.ranks_joined);
  textCell(f.has_channel_times() ? formatDuration(f.channel_median_ns) : "-");
  if (f.has_channel_times() && ImGui::IsItemHovered())
    ImGui::SetTooltip("each channel's time on the GPU, over the joined ranks:\nmin %s, median %s, max %s\n"
                      "channel starts spread over %s on one rank",
                      formatDuration(f.channel_min_ns).c_str(), formatDuration(f.channel_median_ns).c_str(),
                      formatDuration(f.channel_max_ns).c_str(), formatDuration(f.channel_spread_ns).c_str());
}

}  // namespace

void RunPanels::drawTableTabs(const Theme&, TimelineView& timeline) {
  if (!run_) return;
  const std::string collectives = "Collectives (" + std::to_string(run_->analysis->collectives.size()) + ")";
  if (ImGui::BeginTabItem(collectives.c_str())) {
    drawCollectivesTable(timeline);
    ImGui::EndTabItem();
  }
  const std::string ranks = "Ranks (" + std::to_string(run_->analysis->ranks.size()) + ")";
  if (ImGui::BeginTabItem(ranks.c_str())) {
    drawRanksTable(timeline);
    ImGui::EndTabItem();
  }
}

void RunPanels::drawCollectivesTable(TimelineView& timeline) {
  const auto& rows = run_->analysis->collectives;
  if (!ImGui::BeginTable("collectives", 12, kTableFlags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Collective");
  ImGui::TableSetupColumn("Start");
  ImGui::TableSetupColumn("Size", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Wait", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Transfer", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Bus BW", ImGuiTableColumnFlags_PreferSortDescending);
  // From the ranks' NCCL side files (fuselab's NCCL profiler plugin), "-" without.
  ImGui::TableSetupColumn("Algorithm");
  ImGui::TableSetupColumn("Channels", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Channel time", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Ranks");
  ImGui::TableSetupColumn("Late rank");
  ImGui::TableSetupColumn("Late rank before", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsDirty) {
    if (specs->SpecsCount > 0) {
      const bool asc = specs->Specs[0].SortDirection == ImGuiSortDirection_Ascending;
      auto& o = collective_order_;
      switch (specs->Specs[0].ColumnIndex) {
        case 0: sortRows(o, rows, [](const CollectiveStats& r) { return r.group + r.name; }, asc); break;
        case 1: sortRows(o, rows, [](const CollectiveStats& r) { return r.start_ns; }, asc); break;
        case 2: sortRows(o, rows, [](const CollectiveStats& r) { return r.bytes; }, asc); break;
        case 3: sortRows(o, rows, [](const CollectiveStats& r) { return r.wait_ns; }, asc); break;
        case 4: sortRows(o, rows, [](const CollectiveStats& r) { return r.transfer_ns; }, asc); break;
        case 5: sortRows(o, rows, [](const CollectiveStats& r) { return r.busbw_gbps.value_or(-1); }, asc); break;
        case 6: sortRows(o, rows, [](const CollectiveStats& r) { return r.nccl ? r.nccl->algo + r.nccl->proto : ""; }, asc); break;
        case 7: sortRows(o, rows, [](const CollectiveStats& r) { return r.nccl ? r.nccl->channels : -1; }, asc); break;
        case 8: sortRows(o, rows, [](const CollectiveStats& r) { return r.nccl ? r.nccl->channel_median_ns : -1; }, asc); break;
        case 9: sortRows(o, rows, [](const CollectiveStats& r) { return r.arrivals.size(); }, asc); break;
        case 10: sortRows(o, rows, [](const CollectiveStats& r) { return r.late_rank; }, asc); break;
        default: sortRows(o, rows, [](const CollectiveStats& r) { return int(r.late_rank_before.kind); }, asc); break;
      }
    }
    specs->SpecsDirty = false;
  }
  const double origin = static_cast<double>(run_->merged.trace->beginNs());
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(collective_order_.size()));
  while (clipper.Step()) {
    for (int ri = clipper.DisplayStart; ri < clipper.DisplayEnd; ++ri) {
      const uint32_t i = collective_order_[ri];
      const CollectiveStats& s = rows[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(ri);
      const std::string label = s.name + " " + s.group + " #" + std::to_string(s.index);
      if (ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) {
        timeline.showRange(double(s.start_ns) - 0.1 * double(s.end_ns - s.start_ns),
                           double(s.end_ns) + 0.1 * double(s.end_ns - s.start_ns));
        if (const auto late = lateArrival(i)) timeline.select(*late);
        else showRank(s.late_pos, timeline);
      }
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(lateArrival(i) ? "click: select the late arrival (rank %d)"
                                         : "click: load the lanes of the late rank (%d)",
                          s.late_rank);
      ImGui::PopID();
      textCell("+" + formatDuration(static_cast<int64_t>(double(s.start_ns) - origin)));
      textCell(bytesText(s.bytes));
      textCell(formatDuration(s.wait_ns));
      textCell(formatDuration(s.transfer_ns));
      char bw[32] = "-";
      if (s.busbw_gbps) std::snprintf(bw, sizeof bw, "%.2f GB/s", *s.busbw_gbps);
      textCell(bw);
      drawNcclCells(s);
      textCell(std::to_string(s.arrivals.size()) + "/" + std::to_string(s.group_size));
      textCell(std::to_string(s.late_rank));
      textCell(causeText(s.late_rank_before));
    }
  }
  ImGui::EndTable();
}

void RunPanels::drawRanksTable(TimelineView& timeline) {
  const auto& rows = run_->analysis->ranks;
  if (!ImGui::BeginTable("ranks", 11, kTableFlags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Rank", ImGuiTableColumnFlags_DefaultSort);
  ImGui::TableSetupColumn("Kernels", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("GPU util", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Compute", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Non-compute", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Idle", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Comm", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Waiting", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Overlap", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Last to arrive", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("File", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsDirty) {
    if (specs->SpecsCount > 0) {
      const bool asc = specs->Specs[0].SortDirection == ImGuiSortDirection_Ascending;
      auto& o = rank_order_;
      switch (specs->Specs[0].ColumnIndex) {
        case 0: sortRows(o, rows, [](const RankStats& r) { return r.rank; }, asc); break;
        case 1: sortRows(o, rows, [](const RankStats& r) { return r.kernels; }, asc); break;
        case 2: sortRows(o, rows, [](const RankStats& r) { return r.utilization.fraction; }, asc); break;
        case 3: sortRows(o, rows, [](const RankStats& r) { return r.time.fraction(r.time.compute_ns); }, asc); break;
        case 4: sortRows(o, rows, [](const RankStats& r) { return r.time.fraction(r.time.non_compute_ns); }, asc); break;
        case 5: sortRows(o, rows, [](const RankStats& r) { return r.time.fraction(r.time.idle_ns); }, asc); break;
        case 6: sortRows(o, rows, [](const RankStats& r) { return r.comm_ns; }, asc); break;
        case 7: sortRows(o, rows, [](const RankStats& r) { return r.wait_ns; }, asc); break;
        case 8: sortRows(o, rows, [](const RankStats& r) { return r.overlap_fraction.value_or(-1); }, asc); break;
        case 9: sortRows(o, rows, [](const RankStats& r) { return r.wait_caused_ns; }, asc); break;
        default: sortRows(o, rows, [](const RankStats& r) { return r.file; }, asc); break;
      }
    }
    specs->SpecsDirty = false;
  }
  for (size_t ri = 0; ri < rank_order_.size(); ++ri) {
    const RankStats& r = rows[rank_order_[ri]];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::PushID(static_cast<int>(ri));
    const std::string label = std::to_string(r.rank) + (run_->eventsDropped() && !run_->hasLanes(rank_order_[ri])
                                                            ? "  (click: load lanes)" : "");
    if (ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_SpanAllColumns))
      showRank(rank_order_[ri], timeline);
    ImGui::PopID();
    textCell(std::to_string(r.kernels));
    textCell(formatPercent(r.utilization.fraction));
    textCell(formatPercent(r.time.fraction(r.time.compute_ns)));
    textCell(formatPercent(r.time.fraction(r.time.non_compute_ns)));
    textCell(formatPercent(r.time.fraction(r.time.idle_ns)));
    textCell(formatDuration(r.comm_ns));
    textCell(formatDuration(r.wait_ns));
    textCell(r.overlap_fraction ? formatPercent(*r.overlap_fraction) : "-");
    textCell(std::to_string(r.late_count) + "x, " + formatDuration(r.wait_caused_ns));
    textCell(r.file);
  }
  ImGui::EndTable();
}

}  // namespace fuselab::ui
