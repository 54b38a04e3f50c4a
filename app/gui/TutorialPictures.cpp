#include "app/gui/TutorialPictures.h"

#include <imgui.h>

#include <algorithm>

#include "app/gui/OffscreenContext.h"
#include "app/gui/OffscreenRenderer.h"
#include "app/gui/TutorialViews.h"
#include "ui/panels/ComparePanel.h"
#include "ui/panels/SweepPanel.h"
#include "ui/Theme.h"
#include "ui/TimelineView.h"
#include "ui/panels/TutorialPanel.h"

namespace fuselab {

namespace {

constexpr ImGuiWindowFlags kFullFlags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                        ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoScrollbar;

// Begins a window covering the display, styled with `theme`.
void beginFull(const char* id, const ui::Theme& theme) {
  ui::applyImGuiStyle(theme);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->Pos);
  ImGui::SetNextWindowSize(vp->Size);
  ImGui::Begin(id, nullptr, kFullFlags);
}

void render(const std::filesystem::path& path, const std::function<void()>& draw, int width, int height) {
  OffscreenFrame frame;
  frame.width = width;
  frame.height = height;
  frame.frames = 4;  // timelines apply their view on the frame after a request
  writePng(path, renderOffscreen(draw, frame));
}

}  // namespace

void writeTutorialPicture(const std::filesystem::path& path, const TutorialPreset& preset, size_t step_count,
                          std::shared_ptr<const Trace> trace, std::shared_ptr<const TraceAnalysis> analysis,
                          const std::vector<ExpectationResult>& results) {
  OffscreenContext context;  // EGL where there is no display
  // The panel's step list only needs this step; the others are placeholders
  // so the "N of M" navigation reads right.
  std::vector<ui::TutorialStepView> steps(step_count);
  for (size_t i = 0; i < step_count; ++i) steps[i].step = int(i) + 1, steps[i].title = "step " + std::to_string(i + 1);
  const size_t current = size_t(preset.step - 1);
  steps.at(current) = tutorialStepView(preset);
  ui::TutorialCheck check;
  check.results = results;
  check.checked = trace->meta.source.empty() ? trace->meta.trace_name : trace->meta.source;

  ui::TimelineView timeline;
  timeline.setTrace(trace, analysis);
  for (const auto& r : results)
    if (!r.met() && !r.evidence.empty()) {
      timeline.select(r.evidence.front());
      break;
    }
  ui::TutorialPanel panel;
  const ui::Theme theme = ui::makeTheme(ui::ThemeKind::Dark);
  render(path, [&] {
    beginFull("##tutorial_picture", theme);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float left = std::min(560.0f, avail.x * 0.4f);
    ImGui::BeginChild("##panel", ImVec2(left, 0), true);
    panel.draw(steps, current, check, trace.get(), true, theme, timeline);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("##timeline", ImVec2(0, 0), true, ImGuiWindowFlags_NoScrollbar);
    timeline.draw(theme);
    ImGui::EndChild();
    ImGui::End();
  }, 1800, 1000);
}

void writeComparePicture(const std::filesystem::path& path, const PictureTrace& a, const PictureTrace& b,
                         size_t align_step) {
  OffscreenContext context;  // EGL where there is no display
  ui::ComparePanel panel;
  panel.setA(a.trace, a.analysis, a.label);
  panel.setB(b.trace, b.analysis, b.label);
  panel.setAlignStep(align_step);
  const ui::Theme theme = ui::makeTheme(ui::ThemeKind::Dark);
  render(path, [&] {
    beginFull("##compare_picture", theme);
    panel.draw(theme, 560.0f);
    ImGui::End();
  }, 1800, 1000);
}

void writeSweepPlot(const std::filesystem::path& path, const SweepResult& result) {
  OffscreenContext context;  // EGL where there is no display
  WorkloadParams base;
  for (const auto& s : result.series)
    if (!s.skipped) {
      base = s.params;
      break;
    }
  if (result.series.empty()) throw std::runtime_error("the sweep has no series to plot");
  if (base.workload.empty()) base = result.series.front().params;
  if (base.workload.starts_with("fused_")) base.workload = base.workload.substr(6);
  const ui::SweepPlotData data = sweepPlotData(result, sweepTitle(base));
  const ui::Theme theme = ui::makeTheme(ui::ThemeKind::Dark);
  render(path, [&] {
    beginFull("##sweep_picture", theme);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float notes_h = ImGui::GetTextLineHeightWithSpacing() * float(2 * data.series.size() + 1);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ui::drawSweepPlot(ImGui::GetWindowDrawList(), p0, ImVec2(p0.x + avail.x, p0.y + avail.y - notes_h), data, theme);
    ImGui::Dummy(ImVec2(avail.x, avail.y - notes_h));
    for (size_t i = 0; i < data.series.size(); ++i) {
      const auto& s = data.series[i];
      const std::string text = s.label + ": " + (s.skip_reason.empty() ? s.crossover_text : "skipped: " + s.skip_reason);
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(ui::sweepSeriesColor(theme, i)));
      ImGui::PushTextWrapPos(0);
      ImGui::TextUnformatted(text.c_str());
      ImGui::PopTextWrapPos();
      ImGui::PopStyleColor();
    }
    ImGui::End();
  }, 1400, 900);
}

}  // namespace fuselab
