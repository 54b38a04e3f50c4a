#include "ui/panels/MemoryPanel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "profiling/analysis/memory/MemoryText.h"
#include "profiling/trace/DurationText.h"
#include "ui/lanes/LaneDrawing.h"
#include "ui/lanes/MemoryLane.h"
#include "ui/layout/MemoryFolding.h"

namespace fuselab::ui {

namespace {

// Allocated (filled) and reserved (light) over [begin, end], the peak marked.
void drawDevicePlot(const Trace& trace, const DeviceMemory& d, double begin, double end, const Theme& th,
                    TimelineView& timeline) {
  const float h = std::floor(ImGui::GetFontSize() * 6);
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float w = std::max(1.0f, ImGui::GetContentRegionAvail().x);
  ImGui::InvisibleButton(("##mem_" + d.device).c_str(), ImVec2(w, h));
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p, ImVec2(p.x + w, p.y + h), th.canvas_bg);
  TimeAxis axis;
  axis.origin_px = p.x;
  axis.width_px = w;
  axis.fit(begin, end);
  // The timeline's folding of this device when it has the lane (built
  // once); a tree of its own otherwise (e.g. a screenshot of this panel alone).
  std::optional<MemoryFolding> own;
  const MemoryFolding* shared = timeline.memoryFolding(d);
  const MemoryFolding& folding = shared ? *shared : own.emplace(d.curve);
  const int64_t top = std::max<int64_t>(1, std::max(folding.maxReserved(), folding.maxAllocated()));
  auto y = [&](int64_t bytes) { return p.y + h - 2 - (h - 4) * float(double(bytes) / double(top)); };
  for (const MemoryColumn& c : folding.fold(axis, p.x, p.x + w)) {
    dl->AddRectFilled(ImVec2(c.x0, y(c.reserved)), ImVec2(c.x1, p.y + h - 2), withAlpha(th.memcpy, 0.25f));
    dl->AddRectFilled(ImVec2(c.x0, y(c.allocated)), ImVec2(c.x1, p.y + h - 2), withAlpha(th.memcpy, 0.85f));
  }
  const float px = axis.nsToX(double(d.peak_ns));
  if (px >= p.x && px <= p.x + w) {
    const float s = 5 * th.scale, py = y(d.peak_allocated_bytes);
    dl->AddTriangleFilled(ImVec2(px, py), ImVec2(px - s, py - 1.6f * s), ImVec2(px + s, py - 1.6f * s), th.selection);
  }
  dl->AddText(ImVec2(p.x + 4, p.y + 2), th.text_dim, formatMemoryBytes(top).c_str());
  if (hovered) {
    const int64_t point = folding.pointAt(axis.xToNs(ImGui::GetIO().MousePos.x));
    if (point >= 0) {
      drawMemoryPointTooltip(trace, d, size_t(point));
      if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
        const auto stack = stackAt(trace, d.curve.track[size_t(point)], d.curve.ts_ns[size_t(point)]);
        if (!stack.empty()) timeline.select(stack.back(), /*reveal=*/true);
      }
    }
  }
}

void drawTopOps(const TraceAnalysis& a, bool device) {
  std::vector<size_t> order(a.cpu_ops.size());
  std::iota(order.begin(), order.end(), 0);
  auto self = [&](size_t i) {
    return device ? a.cpu_ops[i].self_device_memory_bytes : a.cpu_ops[i].self_cpu_memory_bytes;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return self(x) > self(y); });
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable(device ? "##mem_device_ops" : "##mem_cpu_ops", 4, flags)) return;
  ImGui::TableSetupColumn("op", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("calls");
  ImGui::TableSetupColumn(device ? "self device mem" : "self CPU mem");
  ImGui::TableSetupColumn(device ? "device mem" : "CPU mem");
  ImGui::TableHeadersRow();
  for (size_t k = 0; k < order.size() && k < 8 && self(order[k]) > 0; ++k) {
    const CpuOpRow& r = a.cpu_ops[order[k]];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.name.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%llu", static_cast<unsigned long long>(r.calls));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatMemoryBytes(self(order[k])).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(formatMemoryBytes(device ? r.device_memory_bytes : r.cpu_memory_bytes).c_str());
  }
  ImGui::EndTable();
}

}  // namespace

void drawMemoryTab(const Trace* trace, const TraceAnalysis* analysis, const Theme& theme, TimelineView& timeline) {
  if (!trace || !analysis || analysis->memory.empty()) return;
  if (!ImGui::BeginTabItem("Memory")) return;
  ImGui::BeginChild("##memory_tab");
  drawMemoryPanel(*trace, *analysis, theme, timeline);
  ImGui::EndChild();
  ImGui::EndTabItem();
}

void drawMemoryPanel(const Trace& trace, const TraceAnalysis& a, const Theme& theme, TimelineView& timeline) {
  const double begin = double(a.scope.start_ns), end = double(std::max(a.scope.end_ns, a.scope.start_ns + 1));
  ImGui::PushTextWrapPos(0);
  for (const DeviceMemory& d : a.memory.devices) {
    ImGui::Text("%s: peak %s allocated, %s reserved, at %s", d.device.c_str(),
                formatMemoryBytes(d.peak_allocated_bytes).c_str(), formatMemoryBytes(d.peak_reserved_bytes).c_str(),
                formatDuration(d.peak_ns - trace.beginNs()).c_str());
    if (!d.peak_stack.empty()) ImGui::TextDisabled("in %s", stackText(trace, d.peak_stack).c_str());
    ImGui::TextDisabled("%llu allocations, %llu frees; %s held at the start, %s at the end",
                        static_cast<unsigned long long>(d.allocations), static_cast<unsigned long long>(d.frees),
                        formatMemoryBytes(d.start_allocated_bytes).c_str(), formatMemoryBytes(d.end_allocated_bytes).c_str());
    for (const OutOfMemoryAt& o : d.out_of_memory)
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(theme.selection), "out of memory: %s requested%s%s",
                         formatMemoryBytes(o.event.bytes).c_str(), o.op ? " in " : "",
                         o.op ? std::string(trace.name(*o.op)).c_str() : "");
    drawDevicePlot(trace, d, begin, end, theme, timeline);
    ImGui::Spacing();
  }
  for (const std::string& w : a.memory.warnings) ImGui::TextDisabled("note: %s", w.c_str());
  ImGui::PopTextWrapPos();
  const bool any_device = std::any_of(a.memory.devices.begin(), a.memory.devices.end(),
                                      [](const DeviceMemory& d) { return d.device != "cpu"; });
  ImGui::TextUnformatted("Ops that allocated most (self, as torch's key_averages() counts it)");
  drawTopOps(a, any_device);
}

}  // namespace fuselab::ui
