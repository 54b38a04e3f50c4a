#include "ui/panels/SweepPanel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "profiling/trace/DurationText.h"
#include "ui/layout/LogAxis.h"

namespace fuselab::ui {

ImU32 sweepSeriesColor(const Theme& th, size_t i) {
  const ImU32 colors[] = {th.sync_call, th.kernel, th.launch, th.memcpy, th.cpu_op, th.memset};
  return colors[i % (sizeof colors / sizeof colors[0])] | IM_COL32_A_MASK;
}

namespace {

void dashedVLine(ImDrawList* dl, float x, float y0, float y1, ImU32 color, float dash, float thickness) {
  for (float y = y0; y < y1; y += 2 * dash) dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(y + dash, y1)), color, thickness);
}

std::string percent(double f) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", f * 100.0);
  return buf;
}

// A linear 0..1 axis for utilization.
float linearY(double f, float top, float bottom) {
  return bottom - static_cast<float>(std::clamp(f, 0.0, 1.0)) * (bottom - top);
}

// The title, then a legend entry per series (grey with ": skipped" for one
// that did not run). Returns where the plots below may start.
float drawTitleAndLegend(ImDrawList* dl, ImVec2 min, const SweepPlotData& data, const Theme& th) {
  const float s = th.scale;
  const float line_h = ImGui::GetTextLineHeight();
  float y = min.y + 4 * s;
  if (!data.title.empty()) {
    dl->AddText(ImVec2(min.x + 8 * s, y), th.header_text, data.title.c_str());
    y += line_h + 4 * s;
  }
  float lx = min.x + 8 * s;
  for (size_t i = 0; i < data.series.size(); ++i) {
    const SweepPlotSeries& ser = data.series[i];
    std::string label = ser.label + (ser.detail.empty() ? "" : " (" + ser.detail + ")");
    if (!ser.skip_reason.empty()) label += ": skipped";
    const ImU32 c = ser.skip_reason.empty() ? sweepSeriesColor(th, i) : th.text_dim;
    dl->AddRectFilled(ImVec2(lx, y + line_h * 0.3f), ImVec2(lx + 14 * s, y + line_h * 0.7f), c);
    dl->AddText(ImVec2(lx + 18 * s, y), th.label_text, label.c_str());
    lx += 18 * s + ImGui::CalcTextSize(label.c_str()).x + 16 * s;
  }
  y += line_h + 6 * s;
  return y;
}

// Extents over all points that can go on log axes (positive tokens and time).
struct PlotExtents {
  double tmin = 0, tmax = 0, vmin = 0, vmax = 0;
  bool any = false, any_util = false;
};

PlotExtents plotExtents(const SweepPlotData& data) {
  PlotExtents e;
  for (const auto& ser : data.series)
    for (const auto& p : ser.points) {
      if (!(p.tokens > 0) || !(p.time_ns > 0)) continue;
      if (!e.any) e.tmin = e.tmax = p.tokens, e.vmin = e.vmax = p.time_ns, e.any = true;
      e.tmin = std::min(e.tmin, p.tokens), e.tmax = std::max(e.tmax, p.tokens);
      e.vmin = std::min(e.vmin, p.time_ns), e.vmax = std::max(e.vmax, p.time_ns);
      e.any_util |= p.utilization.has_value();
    }
  return e;
}

// The two stacked plots, time per forward above and utilization below,
// sharing the tokens axis.
struct PlotArea {
  float left = 0, right = 0;
  float time_top = 0, time_bottom = 0;
  float util_top = 0, util_bottom = 0;
  LogAxis x_axis;  // tokens
  LogAxis y_axis;  // time per forward
};

// The plots below `top` in [min, max), with room left for the tick labels;
// without points, axes over typical ranges.
PlotArea plotArea(ImVec2 min, ImVec2 max, float top, const PlotExtents& e, const Theme& th) {
  const float s = th.scale;
  const float line_h = ImGui::GetTextLineHeight();
  PlotArea a;
  a.left = min.x + 78 * s, a.right = max.x - 16 * s;
  const float bottom_axis = max.y - 2 * line_h - 10 * s;  // tick labels, then the axis title
  const float gap = line_h + 10 * s;
  const float total = std::max(40.0f, bottom_axis - top);
  a.time_top = top, a.time_bottom = top + total * 0.62f - gap / 2;
  a.util_top = a.time_bottom + gap, a.util_bottom = bottom_axis;
  a.x_axis = LogAxis::fit(e.any ? e.tmin : 1, e.any ? e.tmax : 8192, a.left, a.right);
  a.y_axis = LogAxis::fit(e.any ? e.vmin : 1e3, e.any ? e.vmax : 1e6, a.time_bottom, a.time_top);
  return a;
}

// Frames, grid, ticks and axis titles of both plots.
void drawPlotFrames(ImDrawList* dl, const PlotArea& a, bool any_util, const Theme& th) {
  const float s = th.scale;
  const float line_h = ImGui::GetTextLineHeight();
  for (auto [top, bottom] : {std::pair{a.time_top, a.time_bottom}, std::pair{a.util_top, a.util_bottom}}) {
    dl->AddRectFilled(ImVec2(a.left, top), ImVec2(a.right, bottom), th.lane_bg[0]);
    dl->AddRect(ImVec2(a.left, top), ImVec2(a.right, bottom), th.grid);
  }
  for (double t : a.x_axis.ticks()) {
    const float x = a.x_axis.toPx(t);
    dl->AddLine(ImVec2(x, a.time_top), ImVec2(x, a.time_bottom), th.grid);
    dl->AddLine(ImVec2(x, a.util_top), ImVec2(x, a.util_bottom), th.grid);
    const std::string label = formatCount(t);
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    dl->AddText(ImVec2(x - w / 2, a.util_bottom + 3 * s), th.text_dim, label.c_str());
  }
  {
    const char* xl = "tokens (log)";
    dl->AddText(ImVec2(a.right - ImGui::CalcTextSize(xl).x, a.util_bottom + 3 * s + line_h), th.text_dim, xl);
  }
  for (double v : a.y_axis.ticks()) {
    const float yy = a.y_axis.toPx(v);
    dl->AddLine(ImVec2(a.left, yy), ImVec2(a.right, yy), th.grid);
    const std::string label = formatDuration(static_cast<int64_t>(std::llround(v)));
    const ImVec2 sz = ImGui::CalcTextSize(label.c_str());
    dl->AddText(ImVec2(a.left - sz.x - 6 * s, yy - sz.y / 2), th.text_dim, label.c_str());
  }
  dl->AddText(ImVec2(a.left + 6 * s, a.time_top + 3 * s), th.label_text, "time per forward (log)");
  for (double f : {0.0, 0.5, 1.0}) {
    const float yy = linearY(f, a.util_top, a.util_bottom);
    dl->AddLine(ImVec2(a.left, yy), ImVec2(a.right, yy), th.grid);
    const std::string label = percent(f);
    const ImVec2 sz = ImGui::CalcTextSize(label.c_str());
    dl->AddText(ImVec2(a.left - sz.x - 6 * s, yy - sz.y / 2), th.text_dim, label.c_str());
  }
  dl->AddText(ImVec2(a.left + 6 * s, a.util_top + 3 * s), th.label_text,
              any_util ? "GPU utilization" : "GPU utilization (none: no GPU activity captured)");
}

// Each series' lines and points in both plots, and its crossover dashed
// across them.
void drawSeries(ImDrawList* dl, const PlotArea& a, const SweepPlotData& data, const Theme& th) {
  const float s = th.scale;
  const float line_h = ImGui::GetTextLineHeight();
  for (size_t i = 0; i < data.series.size(); ++i) {
    const SweepPlotSeries& ser = data.series[i];
    const ImU32 c = sweepSeriesColor(th, i);
    std::vector<ImVec2> time_pts, util_pts;
    for (const auto& p : ser.points) {
      if (!(p.tokens > 0) || !(p.time_ns > 0)) continue;
      time_pts.emplace_back(a.x_axis.toPx(p.tokens), a.y_axis.toPx(p.time_ns));
      if (p.utilization)
        util_pts.emplace_back(a.x_axis.toPx(p.tokens), linearY(*p.utilization, a.util_top, a.util_bottom));
    }
    if (time_pts.size() > 1) dl->AddPolyline(time_pts.data(), int(time_pts.size()), c, 0, 2 * s);
    if (util_pts.size() > 1) dl->AddPolyline(util_pts.data(), int(util_pts.size()), c, 0, 2 * s);
    for (const ImVec2& p : time_pts) dl->AddCircleFilled(p, 3.5f * s, c);
    for (const ImVec2& p : util_pts) dl->AddCircleFilled(p, 3.0f * s, c);
    if (ser.crossover_tokens) {
      const float x = a.x_axis.toPx(*ser.crossover_tokens);
      dashedVLine(dl, x, a.time_top, a.util_bottom, c, 5 * s, 1.5f * s);
      const std::string label = "crossover ~" + formatCount(std::round(*ser.crossover_tokens));
      dl->AddText(ImVec2(x + 4 * s, a.time_top + (3 + 1.2f * float(i + 1)) * s + line_h * float(i + 1)), c,
                  label.c_str());
    }
  }
}

}  // namespace

void drawSweepPlot(ImDrawList* dl, ImVec2 min, ImVec2 max, const SweepPlotData& data, const Theme& th) {
  if (hasTrajectory(data)) {
    const float split = min.x + (max.x - min.x) * 0.58f;
    drawSweepTrajectory(dl, ImVec2(split, min.y), max, data, th);
    max.x = split;
  }
  dl->AddRectFilled(min, max, th.canvas_bg);
  dl->PushClipRect(min, max, true);
  const float top = drawTitleAndLegend(dl, min, data, th);
  const PlotExtents extents = plotExtents(data);
  const PlotArea area = plotArea(min, max, top, extents, th);
  drawPlotFrames(dl, area, extents.any_util, th);
  if (!extents.any) {
    const char* note = "No points yet: run a sweep.";
    const ImVec2 sz = ImGui::CalcTextSize(note);
    dl->AddText(ImVec2((area.left + area.right - sz.x) / 2, (area.time_top + area.time_bottom - sz.y) / 2),
                th.text_dim, note);
  }
  drawSeries(dl, area, data, th);
  dl->PopClipRect();
}

SweepActions SweepPanel::draw(const std::vector<std::string>& workloads, const SweepPlotData& data,
                              const SweepStatus& status, const Theme& th) {
  SweepActions act;
  SweepSettings& st = settings_;
  if (!workloads.empty()) {
    st.workload = std::clamp(st.workload, 0, int(workloads.size()) - 1);
    ImGui::SetNextItemWidth(100 * th.scale);
    if (ImGui::BeginCombo("workload", workloads[size_t(st.workload)].c_str())) {
      for (size_t i = 0; i < workloads.size(); ++i)
        if (ImGui::Selectable(workloads[i].c_str(), int(i) == st.workload)) st.workload = int(i);
      ImGui::EndCombo();
    }
    ImGui::SameLine();
  }
  ImGui::Checkbox("eager", &st.eager);
  ImGui::SameLine();
  ImGui::Checkbox("CUDA graph", &st.graph);
  ImGui::SameLine();
  ImGui::Checkbox("fused", &st.fused);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110 * th.scale);
  ImGui::InputText("tokens", st.tokens, sizeof st.tokens);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("FIRST:LAST for powers of two (1:8192), or a list: 1,64,512,8192");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(70 * th.scale);
  const char* devices[] = {"cuda", "cpu"};
  ImGui::Combo("device", &st.device, devices, 2);

  if (status.busy) {
    ImGui::ProgressBar(static_cast<float>(status.fraction), ImVec2(-90 * th.scale, 0),
                       status.phase.empty() ? nullptr : status.phase.c_str());
    ImGui::SameLine();
    if (ImGui::Button("Cancel", ImVec2(-1, 0))) act.cancel = true;
  } else {
    if (ImGui::Button("Run sweep")) act.run = true;
    ImGui::SameLine();
    ImGui::SetNextItemWidth(220 * th.scale);
    ImGui::InputText("##csv", st.csv_path, sizeof st.csv_path);
    ImGui::SameLine();
    ImGui::BeginDisabled(data.series.empty());
    if (ImGui::Button("Export CSV")) act.export_csv = true;
    ImGui::EndDisabled();
  }
  if (!status.error.empty()) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(th.sync_call), "%s", status.error.c_str());
  if (!status.message.empty()) ImGui::TextDisabled("%s", status.message.c_str());

  // Plot above, table below.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float plot_h = std::max(200.0f * th.scale, avail.y * 0.62f);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  drawSweepPlot(ImGui::GetWindowDrawList(), p0, ImVec2(p0.x + avail.x, p0.y + plot_h), data, th);
  ImGui::Dummy(ImVec2(avail.x, plot_h));
  for (size_t i = 0; i < data.series.size(); ++i) {
    const auto& ser = data.series[i];
    const std::string text = ser.label + ": " + (ser.skip_reason.empty() ? ser.crossover_text : ser.skip_reason);
    if (text.size() <= ser.label.size() + 2) continue;
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(sweepSeriesColor(th, i)), "%s", text.c_str());
    ImGui::PopTextWrapPos();
  }
  drawTable(data);
  return act;
}

void SweepPanel::drawTable(const SweepPlotData& data) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("sweep_table", 6, flags, ImVec2(0, std::max(80.0f, ImGui::GetContentRegionAvail().y)))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const char* h : {"variant", "tokens", "time / forward", "GPU util", "kernels", "launches"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  char buf[64];
  for (const auto& ser : data.series) {
    for (const auto& p : ser.points) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(ser.label.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.0f", p.tokens);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(formatDuration(static_cast<int64_t>(p.time_ns)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(p.utilization ? formatPercent(*p.utilization).c_str() : "-");
      ImGui::TableNextColumn();
      std::snprintf(buf, sizeof buf, "%.1f", p.kernels.value_or(0));
      ImGui::TextUnformatted(p.kernels ? buf : "-");
      ImGui::TableNextColumn();
      std::snprintf(buf, sizeof buf, "%.1f", p.launches.value_or(0));
      ImGui::TextUnformatted(p.launches ? buf : "-");
    }
    for (const auto& f : ser.failures) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(ser.label.c_str());
      ImGui::TableNextColumn();
      ImGui::TextDisabled("failed");
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", f.c_str());
    }
  }
  ImGui::EndTable();
}

}  // namespace fuselab::ui
