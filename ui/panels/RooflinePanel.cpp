#include "ui/panels/RooflinePanel.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "profiling/trace/DurationText.h"
#include "ui/layout/EventNames.h"
#include "ui/RooflineFrame.h"
#include "ui/layout/RooflinePlot.h"

namespace fuselab::ui {

namespace {

// Names drawn beside the dots with the most time; the rest are hovered.
constexpr size_t kMaxDotLabels = 8;

// The precision with the most known kernel time: its roof is drawn.
Precision dominantPrecision(const TraceAnalysis& a) {
  std::map<Precision, int64_t> time;
  for (const KernelRow& k : a.kernels)
    if (k.roofline.known > 0 && k.roofline.flops > 0) time[k.roofline.precision] += k.roofline.dur_ns;
  Precision best = Precision::BF16;
  int64_t most = -1;
  for (auto [p, t] : time)
    if (t > most && a.roofline.ceilings && a.roofline.ceilings->peakTflops(p) > 0) best = p, most = t;
  return best;
}

void tooltip(const KernelRow& k) {
  const RooflineFigures& f = k.roofline;
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36);
  ImGui::TextUnformatted(k.name.c_str());
  ImGui::PopTextWrapPos();
  ImGui::Text("%llu calls, %s in all", static_cast<unsigned long long>(k.count), formatDuration(k.total_ns).c_str());
  ImGui::Text("%s GFLOP, %s MB, %s FLOP/byte (%s)", g3(f.flops / 1e9).c_str(), g3(f.bytes / 1e6).c_str(),
              g3(f.intensity).c_str(), std::string(precisionName(f.precision)).c_str());
  ImGui::Text("achieved %s TFLOP/s, %s GB/s", g3(f.achieved_tflops).c_str(), g3(f.achieved_gbps).c_str());
  if (f.speed_of_light)
    ImGui::Text("%s of speed of light, %s-bound", formatPercent(*f.speed_of_light).c_str(),
                std::string(boundName(f.bound)).c_str());
  if (f.unknown > 0) ImGui::TextDisabled("%llu calls without a work model", static_cast<unsigned long long>(f.unknown));
  ImGui::TextDisabled("click: select the next one on the timeline");
  ImGui::EndTooltip();
}

}  // namespace

void drawRooflinePanel(const TraceAnalysis& a, const Theme& th, TimelineView& timeline) {
  const RooflineAnalysis& r = a.roofline;
  const float s = th.scale;
  if (r.ceilings)
    ImGui::Text("%s ceilings for %s", r.ceilings->source.c_str(), r.ceilings->gpu.c_str());
  else
    ImGui::TextDisabled("No ceilings for this GPU: dots without a roof (measure with `fuselab ceilings` on it).");

  std::vector<RooflineDot> dots;
  std::vector<const KernelRow*> rows;
  size_t hidden = 0;
  double max_ns = 0;
  for (const KernelRow& k : a.kernels) {
    RooflineDot d{k.roofline.intensity, k.roofline.achieved_tflops, double(k.roofline.dur_ns)};
    if (k.roofline.known == 0 || !drawable(d)) {
      ++hidden;
      continue;
    }
    dots.push_back(d);
    rows.push_back(&k);
    max_ns = std::max(max_ns, d.total_ns);
  }
  ImGui::SameLine();
  ImGui::TextDisabled("  %zu kernel names plotted, %zu without FLOPs or a work model", dots.size(), hidden);

  const Precision precision = dominantPrecision(a);
  const double peak = r.ceilings ? r.ceilings->peakTflops(precision) : 0;
  const double bw = r.ceilings ? r.ceilings->copy_gbps : 0;
  const ImVec2 min = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 max(min.x + std::max(avail.x, 200.0f), min.y + std::max(avail.y, 150.0f));
  ImGui::InvisibleButton("roofline", ImVec2(max.x - min.x, max.y - min.y));
  const bool hovered = ImGui::IsItemHovered();
  const bool clicked = ImGui::IsItemClicked();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(min, max, th.canvas_bg);
  const float left = min.x + 60 * s, right = max.x - 12 * s, top = min.y + 8 * s;
  const float bottom = max.y - 2 * ImGui::GetTextLineHeight() - 8 * s;
  const RooflinePlot plot = RooflinePlot::fit(dots, peak, bw, left, top, right, bottom);

  // Text inside the plot that dot labels keep off: the axis title, the roof's label.
  std::vector<LabelRect> reserved = {drawRooflineFrame(dl, plot, left, top, right, bottom, th)};

  const auto roof = plot.roof();
  if (roof.size() >= 2) {
    std::vector<ImVec2> pts;
    for (const PlotPoint& p : roof) pts.emplace_back(p.x, p.y);
    dl->AddPolyline(pts.data(), int(pts.size()), th.header_text, 0, 2.5f * s);
    const std::string label = std::string(precisionName(precision)) + " " + g3(peak) + " TFLOP/s, " + formatCount(bw) +
                              " GB/s (" + r.ceilings->source + ")";
    const ImVec2 at(pts.back().x - ImGui::CalcTextSize(label.c_str()).x,
                    pts.back().y - ImGui::GetTextLineHeight() - 2 * s);
    reserved.push_back(drawPlotText(dl, at, th.label_text, label));
  }

  std::vector<float> radii;
  std::vector<LabelDisc> discs;
  for (size_t i = 0; i < dots.size(); ++i) {
    radii.push_back(dotRadius(dots[i].total_ns, max_ns, 3 * s, 22 * s));
    const PlotPoint c = plot.at(dots[i].intensity, dots[i].tflops);
    discs.push_back({c.x, c.y, radii[i]});
  }
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const auto hit = hovered ? hitDot(plot, dots, radii, mouse.x, mouse.y) : std::nullopt;
  // Largest first, so small dots stay visible on top.
  std::vector<size_t> order(dots.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return radii[x] > radii[y]; });
  for (size_t i : order) {
    const ImVec2 c(discs[i].x, discs[i].y);
    const ImU32 fill = (eventColor(th, rows[i]->category, rows[i]->name) & ~IM_COL32_A_MASK) | IM_COL32(0, 0, 0, 170);
    dl->AddCircleFilled(c, radii[i], fill);
    dl->AddCircle(c, radii[i], hit == i ? th.selection : th.event_border, 0, hit == i ? 2.5f * s : 1);
  }
  // Names beside the dots that take the most time (rows come sorted by time),
  // where they cover no other name or dot; the rest are listed below the plot.
  std::vector<std::string> names;
  std::vector<LabelRequest> requests;
  for (size_t i = 0; i < dots.size() && i < kMaxDotLabels; ++i) {
    std::string name = shortEventName(rows[i]->name);
    if (name.size() > 40) name = name.substr(0, 37) + "...";
    const ImVec2 size = ImGui::CalcTextSize(name.c_str());
    requests.push_back({discs[i], size.x, size.y});
    names.push_back(std::move(name));
  }
  const std::vector<PlacedLabel> placed = placeLabels(requests, discs, {left, top, right, bottom}, reserved);
  std::string unplaced;
  for (size_t i = 0; i < placed.size(); ++i) {
    drawPlacedLabel(dl, placed[i], discs[i], names[i], th.label_text, th.text_dim);
    if (!placed[i].placed) unplaced += (unplaced.empty() ? "" : ", ") + names[i];
  }
  if (!unplaced.empty()) {
    const std::string text = "also large, unlabelled here (hover them): " + unplaced;
    // Beside the x axis' title, on its line.
    const float x_title = ImGui::CalcTextSize(kRooflineXTitle).x;
    dl->PushClipRect(ImVec2(left, bottom), ImVec2(right - x_title - 12 * s, max.y), true);
    dl->AddText(ImVec2(left, max.y - ImGui::GetTextLineHeight() - 2 * s), th.text_dim, text.c_str());
    dl->PopClipRect();
  }
  if (hit) {
    tooltip(*rows[*hit]);
    if (clicked) timeline.findNext(rows[*hit]->name);
  }
}

}  // namespace fuselab::ui
