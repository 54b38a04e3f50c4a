// The sweep's trajectory through the roofline (drawSweepPlot's right part):
// each variant's path from its smallest to its largest token count, the roof
// of the GPU, the ridge (memory -> compute) dashed, and each variant's
// overhead -> compute crossover marked on its path.
#include <algorithm>
#include <string>
#include <vector>

#include "ui/panels/SweepPanel.h"
#include "ui/RooflineFrame.h"
#include "ui/layout/RooflinePlot.h"

namespace fuselab::ui {

namespace {

struct TrajectoryLabel {
  LabelDisc point;
  std::string text;
  ImU32 color;
};

RooflineDot dotOf(const SweepPlotPoint& p) {
  return {p.intensity.value_or(0), p.tflops.value_or(0), p.time_ns};
}

}  // namespace

bool hasTrajectory(const SweepPlotData& data) {
  for (const auto& ser : data.series)
    for (const auto& p : ser.points)
      if (drawable(dotOf(p))) return true;
  return false;
}

void drawSweepTrajectory(ImDrawList* dl, ImVec2 min, ImVec2 max, const SweepPlotData& data, const Theme& th) {
  const float s = th.scale;
  const float line_h = ImGui::GetTextLineHeight();
  dl->AddRectFilled(min, max, th.canvas_bg);
  std::vector<RooflineDot> all;
  for (const auto& ser : data.series)
    for (const auto& p : ser.points) all.push_back(dotOf(p));
  const float left = min.x + 52 * s, right = max.x - 12 * s;
  const float top = min.y + 2 * line_h + 10 * s, bottom = max.y - 2 * line_h - 10 * s;
  const RooflinePlot plot = RooflinePlot::fit(all, data.peak_tflops, data.bandwidth_gbps, left, top, right, bottom);

  dl->AddText(ImVec2(left, min.y + 4 * s), th.header_text, "Trajectory through the roofline as tokens grow");
  dl->AddRectFilled(ImVec2(left, top), ImVec2(right, bottom), th.lane_bg[0]);
  // Text inside the plot that the points' labels keep off.
  std::vector<LabelRect> reserved = {drawRooflineFrame(dl, plot, left, top, right, bottom, th)};

  const auto roof = plot.roof();
  if (roof.size() >= 2) {
    std::vector<ImVec2> pts;
    for (const PlotPoint& p : roof) pts.emplace_back(p.x, p.y);
    dl->AddPolyline(pts.data(), int(pts.size()), th.header_text, 0, 2.5f * s);
    const float ridge_x = plot.x.toPx(plot.ridgeIntensity());
    if (ridge_x > left && ridge_x < right) {
      for (float y = top; y < bottom; y += 10 * s)
        dl->AddLine(ImVec2(ridge_x, y), ImVec2(ridge_x, std::min(y + 5 * s, bottom)), th.text_dim, 1.5f * s);
      const std::string label = "ridge " + g3(plot.ridgeIntensity()) + " FLOP/B: memory | compute";
      reserved.push_back(drawPlotText(
          dl, ImVec2(std::max(left, ridge_x - ImGui::CalcTextSize(label.c_str()).x / 2), bottom - line_h - 4 * s),
          th.text_dim, label));
    }
    const std::string label = data.roof_label + ": " + g3(data.peak_tflops) + " TFLOP/s, " +
                              formatCount(data.bandwidth_gbps) + " GB/s";
    reserved.push_back(drawPlotText(
        dl, ImVec2(right - ImGui::CalcTextSize(label.c_str()).x - 4 * s, pts.back().y - line_h - 2 * s), th.label_text,
        label));
  } else {
    dl->AddText(ImVec2(left + 6 * s, top + line_h + 6 * s), th.text_dim, "no ceilings for this GPU: no roof");
  }

  // Paths and points first; then their labels (token counts at both ends,
  // crossovers), placed off every point and each other (LabelPlacement.h).
  std::vector<LabelDisc> discs;
  std::vector<TrajectoryLabel> labels;
  for (size_t i = 0; i < data.series.size(); ++i) {
    const SweepPlotSeries& ser = data.series[i];
    const ImU32 c = sweepSeriesColor(th, i);
    std::vector<double> tokens;
    std::vector<RooflineDot> dots;
    std::vector<ImVec2> pts;
    for (const auto& p : ser.points) {
      const RooflineDot d = dotOf(p);
      if (!drawable(d)) continue;
      tokens.push_back(p.tokens);
      dots.push_back(d);
      const PlotPoint at = plot.at(d.intensity, d.tflops);
      pts.emplace_back(at.x, at.y);
      discs.push_back({at.x, at.y, 3.5f * s});
    }
    if (pts.size() > 1) dl->AddPolyline(pts.data(), int(pts.size()), c, 0, 2 * s);
    for (const ImVec2& p : pts) dl->AddCircleFilled(p, 3.5f * s, c);
    if (ser.crossover_tokens) {
      if (auto x = trajectoryAt(tokens, dots, *ser.crossover_tokens)) {
        const PlotPoint at = plot.at(x->intensity, x->tflops);
        dl->AddCircle(ImVec2(at.x, at.y), 7 * s, c, 0, 2.5f * s);
        discs.push_back({at.x, at.y, 7 * s});
        labels.push_back({discs.back(), "overhead->compute ~" + formatCount(*ser.crossover_tokens), c});
      }
    }
    if (!pts.empty()) {  // the token counts at both ends
      labels.push_back({{pts.front().x, pts.front().y, 3.5f * s}, formatCount(tokens.front()), c});
      if (pts.size() > 1) labels.push_back({{pts.back().x, pts.back().y, 3.5f * s}, formatCount(tokens.back()), c});
    }
  }
  std::vector<LabelRequest> requests;
  for (const TrajectoryLabel& l : labels) {
    const ImVec2 size = ImGui::CalcTextSize(l.text.c_str());
    requests.push_back({l.point, size.x, size.y});
  }
  const auto placed = placeLabels(requests, discs, {left, top, right, bottom}, reserved);
  // A label with no free place is hidden rather than drawn over another; the table lists every figure.
  for (size_t i = 0; i < labels.size(); ++i)
    drawPlacedLabel(dl, placed[i], labels[i].point, labels[i].text, labels[i].color, labels[i].color);
}

}  // namespace fuselab::ui
