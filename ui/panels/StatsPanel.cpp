#include "ui/panels/StatsPanel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "profiling/analysis/memory/MemoryText.h"
#include "profiling/trace/DurationText.h"
#include "profiling/trace/MemoryBudget.h"
#include "profiling/trace/ObserverEffect.h"
#include "ui/EventTooltip.h"
#include "ui/panels/RooflinePanel.h"
#include "ui/TableSort.h"
#include "ui/layout/EventNames.h"
#include "ui/layout/LaneLayout.h"

namespace fuselab::ui {

namespace {

ImVec4 toVec4(ImU32 c) { return ImGui::ColorConvertU32ToFloat4(c); }

const char* verdictTitle(VerdictKind k) {
  switch (k) {
    case VerdictKind::OverheadBound: return "Overhead-bound";
    case VerdictKind::ComputeBound: return "Compute-bound";
    case VerdictKind::Mixed: return "Mixed";
    default: return "No GPU work";
  }
}

ImU32 verdictColor(const Theme& th, VerdictKind k) {
  switch (k) {
    case VerdictKind::OverheadBound: return th.sync_call;
    case VerdictKind::ComputeBound: return th.kernel;
    case VerdictKind::Mixed: return th.launch;
    default: return th.text_dim;
  }
}

const char* categoryLabel(Category c) {
  switch (c) {
    case Category::Kernel: return "kernel";
    case Category::Memcpy: return "memcpy";
    case Category::Memset: return "memset";
    case Category::CpuOp: return "cpu_op";
    case Category::CudaRuntime: return "runtime";
    case Category::CudaDriver: return "driver";
    default: return "other";
  }
}

// A horizontal bar split into coloured parts (fractions of the full width).
void stackedBar(const std::vector<std::pair<float, ImU32>>& parts, ImU32 background, float height) {
  ImVec2 p = ImGui::GetCursorScreenPos();
  float w = ImGui::GetContentRegionAvail().x;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p, ImVec2(p.x + w, p.y + height), background, 2);
  float x = p.x;
  for (auto [f, c] : parts) {
    float pw = w * std::clamp(f, 0.0f, 1.0f);
    if (pw > 0) dl->AddRectFilled(ImVec2(x, p.y), ImVec2(x + pw, p.y + height), c);
    x += pw;
  }
  ImGui::Dummy(ImVec2(w, height));
}

ImU32 opaque(ImU32 c) { return c | IM_COL32_A_MASK; }

}  // namespace

void StatsPanel::drawSummary(const Trace* trace, const TraceAnalysis* analysis, const Theme& th,
                             TimelineView& timeline, const RunVerdict* run_verdict) {
  if (!trace || !analysis) {
    ImGui::TextDisabled("Open a trace to see its verdict,");
    ImGui::TextDisabled("GPU utilization and idle gaps.");
    return;
  }
  const TraceAnalysis& a = *analysis;
  ImGui::PushTextWrapPos(0.0f);  // every line wraps at the panel's edge

  if (run_verdict) {
    const bool held = run_verdict->kind == RunVerdictKind::StragglerBound;
    ImGui::TextColored(toVec4(held ? th.late_arrival : th.header_text), "%s", run_verdict->title.c_str());
    ImGui::TextUnformatted(run_verdict->explanation.c_str());
  } else {
    ImGui::TextColored(toVec4(verdictColor(th, a.verdict.kind)), "%s", verdictTitle(a.verdict.kind));
    ImGui::TextUnformatted(a.verdict.explanation.c_str());
  }
  if (const auto effect = observerEffectOf(*trace)) {
    ImGui::TextDisabled("Observer effect: %s", describeObserverEffect(*effect).c_str());
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("The recorded steps against the same forwards timed with no profiler attached,\n"
                        "before and after recording. The profiler's own cost is in every figure above.");
  }
  ImGui::Spacing();

  ImGui::Text("GPU utilization  %s", formatPercent(a.utilization.fraction).c_str());
  stackedBar({{static_cast<float>(a.utilization.fraction), opaque(th.kernel)}}, th.label_bg,
             ImGui::GetFontSize() * 0.7f);
  ImGui::TextDisabled("busy %s of %s%s", formatDuration(a.utilization.busy_ns).c_str(),
                      formatDuration(a.utilization.span_ns).c_str(),
                      a.scope.from_steps ? " (the profiled steps)" : " (whole trace)");
  ImGui::Spacing();

  const IdleBreakdown& idle = a.idle;
  ImGui::Text("GPU idle  %s in %llu gaps", formatDuration(idle.totalNs()).c_str(),
              static_cast<unsigned long long>(idle.gap_count));
  double total = std::max<double>(1, static_cast<double>(idle.totalNs()));
  const std::pair<GapCause, int64_t> causes[] = {{GapCause::HostWait, idle.host_wait_ns},
                                                 {GapCause::KernelWait, idle.kernel_wait_ns},
                                                 {GapCause::Other, idle.other_ns}};
  std::vector<std::pair<float, ImU32>> parts;
  for (auto [c, ns] : causes) parts.push_back({static_cast<float>(ns / total), opaque(th.gap[static_cast<int>(c)])});
  if (idle.totalNs() > 0) stackedBar(parts, th.label_bg, ImGui::GetFontSize() * 0.7f);
  for (auto [c, ns] : causes) {
    ImGui::ColorButton(std::string(gapCauseLabel(c)).c_str(), toVec4(opaque(th.gap[static_cast<int>(c)])),
                       ImGuiColorEditFlags_NoTooltip, ImVec2(ImGui::GetFontSize() * 0.8f, ImGui::GetFontSize() * 0.8f));
    ImGui::SameLine();
    ImGui::Text("%-12s %9s  %6s", std::string(gapCauseLabel(c)).c_str(), formatDuration(ns).c_str(),
                formatPercent(ns / total).c_str());
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
      ImGui::TextUnformatted(std::string(gapCauseExplanation(c)).c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
  }
  if (idle.sync_covered_ns > 0)
    ImGui::TextDisabled("%s of it with the CPU blocked in a synchronize call", formatDuration(idle.sync_covered_ns).c_str());
  ImGui::TextDisabled("gap threshold (kernel wait below): %s", formatDuration(a.options.gap_threshold_ns).c_str());
  ImGui::Spacing();

  ImGui::Text("Launch delay  mean %s, max %s", formatDuration(std::llround(a.launch_delay_summary.mean_ns)).c_str(),
              formatDuration(a.launch_delay_summary.max_ns).c_str());
  ImGui::TextDisabled("launch call end -> GPU start, %llu GPU ops",
                      static_cast<unsigned long long>(a.launch_delay_summary.count));
  for (const DeviceMemory& d : a.memory.devices) {  // the peak and what made it
    ImGui::Spacing();
    ImGui::Text("Memory peak  %s on %s", formatMemoryBytes(d.peak_allocated_bytes).c_str(), d.device.c_str());
    if (d.peak_op) {
      ImGui::TextDisabled("in %s (%s reserved)", std::string(trace->name(*d.peak_op)).c_str(),
                          formatMemoryBytes(d.peak_reserved_bytes).c_str());
      if (ImGui::IsItemClicked()) timeline.select(*d.peak_op, /*reveal=*/true);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("click: show it on the timeline; the Memory tab has the whole curve");
    }
    if (!d.out_of_memory.empty())
      ImGui::TextColored(toVec4(th.selection), "%zu out-of-memory event%s", d.out_of_memory.size(),
                         d.out_of_memory.size() == 1 ? "" : "s");
  }
  ImGui::Text("GPU ops in scope  %llu (%llu kernels)", static_cast<unsigned long long>(a.gpu_op_count),
              static_cast<unsigned long long>(a.kernel_count));
  if (!a.steps.empty()) {
    uint64_t mn = UINT64_MAX, mx = 0;
    for (const auto& s : a.steps) mn = std::min(mn, s.kernels), mx = std::max(mx, s.kernels);
    if (mn == mx)
      ImGui::Text("Kernels per step  %llu (%zu steps)", static_cast<unsigned long long>(mn), a.steps.size());
    else
      ImGui::Text("Kernels per step  %llu-%llu (%zu steps)", static_cast<unsigned long long>(mn),
                  static_cast<unsigned long long>(mx), a.steps.size());
  }

  ImGui::Spacing();
  ImGui::Separator();
  ImGui::Text("Diagnostics (%zu)", a.diagnostics.size());
  if (a.diagnostics.empty()) ImGui::TextDisabled("nothing unusual found");
  for (size_t i = 0; i < a.diagnostics.size(); ++i) {
    const Diagnostic& d = a.diagnostics[i];
    ImGui::PushID(static_cast<int>(i));
    ImGui::TextColored(toVec4(th.launch), "%s", std::string(diagnosticName(d.kind)).c_str());
    ImGui::TextUnformatted(d.message.c_str());
    if (!d.evidence.empty()) {
      if (ImGui::SmallButton("show on timeline")) timeline.select(d.evidence.front(), true);
    }
    ImGui::PopID();
    ImGui::Spacing();
  }
  ImGui::PopTextWrapPos();
}

void StatsPanel::drawTableTabs(const Trace* trace, const TraceAnalysis* analysis, const Theme& th,
                               TimelineView& timeline) {
  if (!trace || !analysis) {
    if (ImGui::BeginTabItem("Tables")) {
      ImGui::TextDisabled("Steps, kernels and CPU ops of the trace appear here.");
      ImGui::EndTabItem();
    }
    return;
  }
  if (sorted_for_ != analysis) {
    kernel_order_.resize(analysis->kernels.size());
    std::iota(kernel_order_.begin(), kernel_order_.end(), 0u);
    cpu_order_.resize(analysis->cpu_ops.size());
    std::iota(cpu_order_.begin(), cpu_order_.end(), 0u);
    sorted_for_ = analysis;
  }
  std::string kernels = "Kernels (" + std::to_string(analysis->kernels.size()) + ")###kernels";
  std::string cpu = "CPU ops (" + std::to_string(analysis->cpu_ops.size()) + ")###cpu";
  std::string steps = "Steps (" + std::to_string(analysis->steps.size()) + ")###steps";
  if (ImGui::BeginTabItem(kernels.c_str())) {
    drawKernelTable(*analysis, timeline);
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem(cpu.c_str())) {
    drawCpuOpTable(*analysis, timeline);
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem(steps.c_str())) {
    drawStepsTable(*analysis, timeline);
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Idle by stream")) {
    drawStreamIdleTable(*trace, *analysis, th);
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Roofline")) {
    drawRooflinePanel(*analysis, th, timeline);
    ImGui::EndTabItem();
  }
}

namespace {
constexpr ImGuiTableFlags kTableFlags = ImGuiTableFlags_Sortable | ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders |
                                        ImGuiTableFlags_Resizable | ImGuiTableFlags_ScrollY |
                                        ImGuiTableFlags_SizingFixedFit;
}

namespace {

void drawMeasuredCells(const KernelRow& r) {
  ImGui::TableNextColumn();
  const auto model = r.modelBytesPerCall();
  if (r.measured.bytes_per_call) {
    ImGui::Text("%s (%s)", formatBytes(uint64_t(std::llround(*r.measured.bytes_per_call))).c_str(),
                model ? formatBytes(uint64_t(std::llround(*model))).c_str() : "model unknown");
  } else {
    ImGui::TextDisabled("not measured");
  }
  ImGui::TableNextColumn();
  if (r.measured.tensor_active_pct)
    ImGui::Text("%.1f%%", *r.measured.tensor_active_pct);
  else
    ImGui::TextDisabled("not measured");
}

}  // namespace

void StatsPanel::drawKernelTable(const TraceAnalysis& a, TimelineView& timeline) {
  // The measured columns only for traces of capture --counters.
  const bool measured = anyMeasuredFigures(a.kernels);
  if (!ImGui::BeginTable("kernels", measured ? 10 : 8, kTableFlags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Name", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Kind");
  ImGui::TableSetupColumn("Count");
  ImGui::TableSetupColumn("Total", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Mean", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Min", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Max", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("% of speed of light", ImGuiTableColumnFlags_PreferSortDescending);
  if (measured) {
    ImGui::TableSetupColumn("DRAM bytes/call: measured (model)", ImGuiTableColumnFlags_PreferSortDescending);
    ImGui::TableSetupColumn("Tensor active (measured)", ImGuiTableColumnFlags_PreferSortDescending);
  }
  ImGui::TableHeadersRow();
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsDirty) {
    if (specs->SpecsCount > 0) {
      bool asc = specs->Specs[0].SortDirection == ImGuiSortDirection_Ascending;
      const auto& rows = a.kernels;
      // Unknown speed of light sorts below every known one.
      auto sol = [](const KernelRow& r) { return r.roofline.speed_of_light.value_or(-1.0); };
      switch (specs->Specs[0].ColumnIndex) {
        case 0: sortRows(kernel_order_, rows, [](const KernelRow& r) { return r.name; }, asc); break;
        case 1: sortRows(kernel_order_, rows, [](const KernelRow& r) { return static_cast<int>(r.category); }, asc); break;
        case 2: sortRows(kernel_order_, rows, [](const KernelRow& r) { return r.count; }, asc); break;
        case 3: sortRows(kernel_order_, rows, [](const KernelRow& r) { return r.total_ns; }, asc); break;
        case 4: sortRows(kernel_order_, rows, [](const KernelRow& r) { return r.mean_ns; }, asc); break;
        case 5: sortRows(kernel_order_, rows, [](const KernelRow& r) { return r.min_ns; }, asc); break;
        case 6: sortRows(kernel_order_, rows, [](const KernelRow& r) { return r.max_ns; }, asc); break;
        case 8: sortRows(kernel_order_, rows, [](const KernelRow& r) { return r.measured.bytes_per_call.value_or(-1.0); }, asc); break;
        case 9: sortRows(kernel_order_, rows, [](const KernelRow& r) { return r.measured.tensor_active_pct.value_or(-1.0); }, asc); break;
        default: sortRows(kernel_order_, rows, sol, asc); break;
      }
    }
    specs->SpecsDirty = false;
  }
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(kernel_order_.size()));
  while (clipper.Step()) {
    for (int ri = clipper.DisplayStart; ri < clipper.DisplayEnd; ++ri) {
      const KernelRow& r = a.kernels[kernel_order_[ri]];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(ri);
      std::string shown = shortEventName(r.name);
      if (ImGui::Selectable(shown.c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) timeline.findNext(r.name);
      if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36);
        ImGui::TextUnformatted(r.name.c_str());
        ImGui::PopTextWrapPos();
        ImGui::TextDisabled("click: select the next one on the timeline");
        ImGui::EndTooltip();
      }
      ImGui::PopID();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(categoryLabel(r.category));
      ImGui::TableNextColumn();
      ImGui::Text("%llu", static_cast<unsigned long long>(r.count));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(formatDuration(r.total_ns).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(formatDuration(std::llround(r.mean_ns)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(formatDuration(r.min_ns).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(formatDuration(r.max_ns).c_str());
      ImGui::TableNextColumn();
      if (r.roofline.speed_of_light) {
        ImGui::Text("%s %s", formatPercent(*r.roofline.speed_of_light).c_str(),
                    std::string(boundName(r.roofline.bound)).c_str());
      } else {
        ImGui::TextDisabled(r.roofline.known > 0 ? "no ceiling" : "unknown work");
      }
      if (measured) drawMeasuredCells(r);
    }
  }
  ImGui::EndTable();
}

void StatsPanel::drawCpuOpTable(const TraceAnalysis& a, TimelineView& timeline) {
  // The memory columns only for traces that recorded memory.
  const bool memory = !a.memory.empty();
  if (ImGui::SmallButton("Copy as CSV")) ImGui::SetClipboardText(cpuOpTableCsv(a.cpu_ops).c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The whole table, memory columns included, for a spreadsheet");
  if (!ImGui::BeginTable("cpu_ops", memory ? 11 : 7, kTableFlags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Name", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Kind");
  ImGui::TableSetupColumn("Calls", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Total", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Self", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("GPU time", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("GPU ops", ImGuiTableColumnFlags_PreferSortDescending);
  if (memory) {  // as torch's key_averages() counts them
    ImGui::TableSetupColumn("Self CPU mem", ImGuiTableColumnFlags_PreferSortDescending);
    ImGui::TableSetupColumn("CPU mem", ImGuiTableColumnFlags_PreferSortDescending);
    ImGui::TableSetupColumn("Self device mem", ImGuiTableColumnFlags_PreferSortDescending);
    ImGui::TableSetupColumn("Device mem", ImGuiTableColumnFlags_PreferSortDescending);
  }
  ImGui::TableHeadersRow();
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsDirty) {
    if (specs->SpecsCount > 0) {
      bool asc = specs->Specs[0].SortDirection == ImGuiSortDirection_Ascending;
      const auto& rows = a.cpu_ops;
      switch (specs->Specs[0].ColumnIndex) {
        case 0: sortRows(cpu_order_, rows, [](const CpuOpRow& r) { return r.name; }, asc); break;
        case 1: sortRows(cpu_order_, rows, [](const CpuOpRow& r) { return static_cast<int>(r.category); }, asc); break;
        case 2: sortRows(cpu_order_, rows, [](const CpuOpRow& r) { return r.calls; }, asc); break;
        case 3: sortRows(cpu_order_, rows, [](const CpuOpRow& r) { return r.total_ns; }, asc); break;
        case 4: sortRows(cpu_order_, rows, [](const CpuOpRow& r) { return r.self_ns; }, asc); break;
        case 5: sortRows(cpu_order_, rows, [](const CpuOpRow& r) { return r.gpu_ns; }, asc); break;
        case 6: sortRows(cpu_order_, rows, [](const CpuOpRow& r) { return r.gpu_ops; }, asc); break;
        case 7: sortRows(cpu_order_, rows, [](const CpuOpRow& r) { return r.self_cpu_memory_bytes; }, asc); break;
        case 8: sortRows(cpu_order_, rows, [](const CpuOpRow& r) { return r.cpu_memory_bytes; }, asc); break;
        case 9: sortRows(cpu_order_, rows, [](const CpuOpRow& r) { return r.self_device_memory_bytes; }, asc); break;
        default: sortRows(cpu_order_, rows, [](const CpuOpRow& r) { return r.device_memory_bytes; }, asc); break;
      }
    }
    specs->SpecsDirty = false;
  }
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(cpu_order_.size()));
  while (clipper.Step()) {
    for (int ri = clipper.DisplayStart; ri < clipper.DisplayEnd; ++ri) {
      const CpuOpRow& r = a.cpu_ops[cpu_order_[ri]];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(ri);
      if (ImGui::Selectable(r.name.c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) timeline.findNext(r.name);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("click: select the next call on the timeline");
      ImGui::PopID();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(categoryLabel(r.category));
      ImGui::TableNextColumn();
      ImGui::Text("%llu", static_cast<unsigned long long>(r.calls));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(formatDuration(r.total_ns).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(formatDuration(r.self_ns).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.gpu_ops ? formatDuration(r.gpu_ns).c_str() : "-");
      ImGui::TableNextColumn();
      ImGui::Text("%llu", static_cast<unsigned long long>(r.gpu_ops));
      if (memory)
        for (int64_t bytes : {r.self_cpu_memory_bytes, r.cpu_memory_bytes, r.self_device_memory_bytes, r.device_memory_bytes}) {
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(bytes ? formatMemoryBytes(bytes).c_str() : "-");
        }
    }
  }
  ImGui::EndTable();
}

void StatsPanel::drawStepsTable(const TraceAnalysis& a, TimelineView& timeline) {
  if (a.steps.empty()) {
    ImGui::TextDisabled("No ProfilerStep#k annotations in this trace.");
    return;
  }
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_Resizable |
                                    ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("steps", 8, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Step", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Wall");
  ImGui::TableSetupColumn("GPU busy");
  ImGui::TableSetupColumn("CPU ops");
  ImGui::TableSetupColumn("Kernels");
  ImGui::TableSetupColumn("GPU ops");
  ImGui::TableSetupColumn("Launches");
  ImGui::TableSetupColumn("First GPU op after");
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < a.steps.size(); ++i) {
    const StepStats& s = a.steps[i];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::PushID(static_cast<int>(i));
    std::string label = std::to_string(i + 1) + ": " + s.name;
    if (ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) timeline.fitStep(i);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("click (or key %zu): fit the timeline to this step", i + 1);
    ImGui::PopID();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatDuration(s.wall_ns).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatDuration(s.gpu_busy_ns).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatDuration(s.cpu_dispatch_ns).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%llu", static_cast<unsigned long long>(s.kernels));
    ImGui::TableNextColumn();
    ImGui::Text("%llu", static_cast<unsigned long long>(s.gpu_ops));
    ImGui::TableNextColumn();
    ImGui::Text("%llu", static_cast<unsigned long long>(s.launches));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(s.first_gpu_op_offset_ns < 0 ? "-" : formatDuration(s.first_gpu_op_offset_ns).c_str());
  }
  ImGui::EndTable();
}

void StatsPanel::drawStreamIdleTable(const Trace& trace, const TraceAnalysis& a, const Theme& th) {
  if (a.idle_per_stream.empty()) {
    ImGui::TextDisabled("No idle gaps between GPU ops.");
    return;
  }
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_Resizable |
                                    ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("idle", 6, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Stream", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Gaps");
  ImGui::TableSetupColumn("Host wait");
  ImGui::TableSetupColumn("Kernel wait");
  ImGui::TableSetupColumn("Other");
  ImGui::TableSetupColumn("Under sync");
  ImGui::TableHeadersRow();
  for (const StreamIdle& s : a.idle_per_stream) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(s.track < trace.tracks.size() ? laneLabel(trace, trace.tracks[s.track]).c_str() : "?");
    ImGui::TableNextColumn();
    ImGui::Text("%llu", static_cast<unsigned long long>(s.idle.gap_count));
    ImGui::TableNextColumn();
    ImGui::TextColored(toVec4(opaque(th.gap[0])), "%s", formatDuration(s.idle.host_wait_ns).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatDuration(s.idle.kernel_wait_ns).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatDuration(s.idle.other_ns).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatDuration(s.idle.sync_covered_ns).c_str());
  }
  ImGui::EndTable();
}

}  // namespace fuselab::ui
