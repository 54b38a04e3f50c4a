#include "ui/panels/ComparePanel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "profiling/analysis/expectations/Expectations.h"
#include "profiling/trace/DurationText.h"
#include "ui/panels/FlamePanel.h"

namespace fuselab::ui {

void ComparePanel::setA(std::shared_ptr<const Trace> trace, std::shared_ptr<const TraceAnalysis> analysis,
                        std::string label) {
  a_.trace = std::move(trace);
  a_.analysis = std::move(analysis);
  a_.label = std::move(label);
  a_.repeats.clear();
  a_.view.setTrace(a_.trace, a_.analysis);
  recompute();
}

void ComparePanel::setB(std::shared_ptr<const Trace> trace, std::shared_ptr<const TraceAnalysis> analysis,
                        std::string label) {
  b_.trace = std::move(trace);
  b_.analysis = std::move(analysis);
  b_.label = std::move(label);
  b_.repeats.clear();
  b_.view.setTrace(b_.trace, b_.analysis);
  recompute();
}

void ComparePanel::addRepeatA(std::shared_ptr<const Trace> trace, std::shared_ptr<const TraceAnalysis> analysis) {
  a_.repeats.emplace_back(std::move(trace), std::move(analysis));
  recompute(false);  // the timelines stay as they are
}

void ComparePanel::addRepeatB(std::shared_ptr<const Trace> trace, std::shared_ptr<const TraceAnalysis> analysis) {
  b_.repeats.emplace_back(std::move(trace), std::move(analysis));
  recompute(false);
}

std::vector<CompareInput> ComparePanel::inputs(const Side& side) {
  std::vector<CompareInput> in{{side.trace.get(), side.analysis.get()}};
  for (const auto& [trace, analysis] : side.repeats) in.push_back({trace.get(), analysis.get()});
  return in;
}

void ComparePanel::setAlignStep(size_t ordinal) {
  align_step_ = ordinal;
  recompute();
}

void ComparePanel::recompute(bool refit) {
  comparison_.reset();
  flame_diff_.reset();
  if (!a_.trace || !b_.trace || !a_.analysis || !b_.analysis) return;
  CompareOptions o;
  o.align_step = align_step_;
  comparison_ = compareSides(inputs(a_), inputs(b_), o);
  fit_pending_ = fit_pending_ || refit;
}

void ComparePanel::drawSide(Side& side, const char* id, const char* tag, float height, const Theme& th) {
  ImGui::BeginChild(id, ImVec2(ImGui::GetContentRegionAvail().x, height), true,
                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(th.header_text), "%s", tag);
  ImGui::SameLine();
  ImGui::TextUnformatted(side.label.empty() ? "(none)" : side.label.c_str());
  side.view.draw(th);
  ImGui::EndChild();
}

void ComparePanel::synchronize() {
  if (!comparison_) return;
  const double off = double(comparison_->b_offset_ns);
  if (fit_pending_) {
    // Show A's aligned step (or the whole of A) and the matching part of B.
    double begin = double(a_.trace->beginNs()), end = double(a_.trace->endNs());
    if (comparison_->aligned_on_step && align_step_ < a_.analysis->steps.size()) {
      begin = double(a_.analysis->steps[align_step_].start_ns);
      end = double(a_.analysis->steps[align_step_].end_ns);
    }
    const double margin = 0.03 * (end - begin);
    a_.view.showRange(begin - margin, end + margin);
    b_.view.showRange(begin - margin - off, end + margin - off);
    fit_pending_ = false;
    last_a_start_ = last_a_end_ = last_b_start_ = last_b_end_ = 0;
    return;
  }
  const double as = a_.view.axis().start_ns, ae = a_.view.axis().endNs();
  const double bs = b_.view.axis().start_ns, be = b_.view.axis().endNs();
  const double tol = 1e-6 * std::max(1.0, ae - as);
  const bool a_moved = std::fabs(as - last_a_start_) > tol || std::fabs(ae - last_a_end_) > tol;
  const bool b_moved = std::fabs(bs - last_b_start_) > tol || std::fabs(be - last_b_end_) > tol;
  const bool apart = std::fabs((bs + off) - as) > tol || std::fabs((be + off) - ae) > tol;
  if (apart) {
    if (a_moved || !b_moved)
      b_.view.showRange(as - off, ae - off);
    else
      a_.view.showRange(bs + off, be + off);
  }
  last_a_start_ = as, last_a_end_ = ae, last_b_start_ = bs, last_b_end_ = be;
}

void ComparePanel::draw(const Theme& th, float table_width) {
  if (!a_.trace || !b_.trace) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("Pin a trace as A, then open or run B. A: %s, B: %s", a_.trace ? a_.label.c_str() : "none",
                        b_.trace ? b_.label.c_str() : "none");
    ImGui::PopTextWrapPos();
    return;
  }
  // Step to align on.
  const size_t steps = std::max(a_.analysis->steps.size(), b_.analysis->steps.size());
  if (steps > 0) {
    ImGui::SetNextItemWidth(160 * th.scale);
    char preview[64];
    std::snprintf(preview, sizeof preview, "step %zu", align_step_ + 1);
    if (ImGui::BeginCombo("align on", preview)) {
      for (size_t k = 0; k < steps; ++k) {
        char item[64];
        std::snprintf(item, sizeof item, "step %zu", k + 1);
        if (ImGui::Selectable(item, k == align_step_)) setAlignStep(k);
      }
      ImGui::EndCombo();
    }
    ImGui::SameLine();
  }
  if (ImGui::Button("Fit step")) fit_pending_ = true;
  ImGui::SameLine();
  ImGui::Checkbox("Flame graph (B against A)", &show_flame_);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("B's flame graph, each frame coloured by its change against A: red slower, blue faster,\n"
                      "grey within the noise of the steps (the same test as the table's)");
  if (comparison_ && !show_flame_) {
    ImGui::SameLine();
    ImGui::TextDisabled("aligned on %s", comparison_->alignment.c_str());
  }

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const bool side_by_side = table_width > 0 && avail.x > table_width + 200 * th.scale;
  const float views_w = side_by_side ? avail.x - table_width - 6 * th.scale : avail.x;
  const float views_h = side_by_side ? avail.y : std::max(120.0f, avail.y * 0.65f);
  ImGui::BeginChild("##compare_views", ImVec2(views_w, views_h), false, ImGuiWindowFlags_NoScrollbar);
  if (show_flame_) {
    drawFlameDiff(th);
  } else {
    const float half = std::floor((views_h - 4 * th.scale) / 2);
    drawSide(a_, "##view_a", "A", half, th);
    drawSide(b_, "##view_b", "B", half, th);
  }
  ImGui::EndChild();
  if (!show_flame_) synchronize();
  if (side_by_side) ImGui::SameLine();
  ImGui::BeginChild("##compare_table", ImVec2(side_by_side ? table_width : avail.x, 0), false);
  drawTable(th);
  ImGui::EndChild();
}

void ComparePanel::drawTable(const Theme& th) {
  if (!comparison_) return;
  const TraceComparison& c = *comparison_;
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("A: %zu run(s), %zu sample(s); B: %zu run(s), %zu sample(s). A change counts when it is beyond "
                      "noise (hover for the rule).",
                      c.a_traces, c.a_samples, c.b_traces, c.b_samples);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", std::string(NoiseRule::description()).c_str());
  ImGui::PopTextWrapPos();
  const ImVec4 dim = ImGui::ColorConvertU32ToFloat4(th.text_dim);
  // Colours say better / worse only for changes beyond noise.
  auto drawChange = [&](const NoiseTestResult& noise, bool lower_is_better, const std::string& label) {
    if (!noise.beyondNoise()) {
      ImGui::TextColored(dim, "%s", label.c_str());
      return;
    }
    const bool better = lower_is_better == (noise.outcome == NoiseOutcome::Lower);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(better ? th.kernel : th.sync_call), "%s", label.c_str());
  };
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("compare_rows", 5, flags)) {
    for (const char* h : {"metric", "A median [min - max]", "B median [min - max]", "B - A", "change"})
      ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (const CompareRow& r : c.rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.metric.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(formatCompareSpread(r.unit, r.a_stats).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(formatCompareSpread(r.unit, r.b_stats).c_str());
      ImGui::TableNextColumn();
      if (auto d = r.delta()) {
        const std::string v = (*d > 0 ? "+" : *d < 0 ? "-" : "") + formatCompareValue(r.unit, std::fabs(*d));
        ImGui::TextUnformatted(v.c_str());
        if (auto q = r.ratio(); q && ImGui::IsItemHovered())
          ImGui::SetTooltip("B / A = %s; 95%% interval of B - A: %s to %s", formatRatio(*q).c_str(),
                            formatCompareValue(r.unit, r.noise.ci_low).c_str(),
                            formatCompareValue(r.unit, r.noise.ci_high).c_str());
      } else {
        ImGui::TextDisabled("n/a");
      }
      ImGui::TableNextColumn();
      drawChange(r.noise, r.lower_is_better, changeLabel(r));
    }
    ImGui::EndTable();
  }
  ImGui::Text("verdict: %s", c.verdictLine().c_str());
  ImGui::Spacing();
  if (c.kernels.empty()) return;
  ImGui::TextUnformatted("GPU ops matched by launching op, shapes and order (duration)");
  if (ImGui::BeginTable("compare_kernels", 4, flags)) {
    ImGui::TableSetupColumn("op (kernel)", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("A", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("B", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("change", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableHeadersRow();
    for (const CompareKernelRow& k : c.kernels) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(k.label.c_str());
      std::string kernel = shortKernelName(k.a_name.empty() ? k.b_name : k.a_name, 60);
      if (k.renamed()) kernel += " -> " + shortKernelName(k.b_name, 60);
      if (!k.key.op.empty()) ImGui::TextColored(dim, "%s", kernel.c_str());
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("A: %s\nB: %s\nper step: %.2f | %.2f", k.a_name.empty() ? "(none)" : k.a_name.c_str(),
                          k.b_name.empty() ? "(none)" : k.b_name.c_str(), k.a_per_step, k.b_per_step);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(formatCompareSpread(CompareUnit::Nanoseconds, k.a_stats).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(formatCompareSpread(CompareUnit::Nanoseconds, k.b_stats).c_str());
      ImGui::TableNextColumn();
      drawChange(k.noise, true, changeLabel(k));
    }
    ImGui::EndTable();
  }
}

void ComparePanel::drawFlameDiff(const Theme& th) {
  int metric = flame_metric_ == FlameMetric::Cpu ? 0 : 1;
  ImGui::RadioButton("CPU time", &metric, 0);
  ImGui::SameLine();
  ImGui::RadioButton("GPU time", &metric, 1);
  flame_metric_ = metric == 0 ? FlameMetric::Cpu : FlameMetric::Gpu;
  if (!flame_diff_ || flame_diff_metric_ != flame_metric_) {
    flame_diff_ = diffFlameGraphs(*a_.trace, *b_.trace, flame_metric_);
    flame_diff_metric_ = flame_metric_;
    flame_zoom_ = 0;
  }
  ImGui::SameLine(0, 16);
  ImGui::TextDisabled("%zu steps of A against %zu of B%s", flame_diff_->steps_a, flame_diff_->steps_b,
                      std::min(flame_diff_->steps_a, flame_diff_->steps_b) < NoiseRule::kMinSamples
                          ? ": too few to judge the noise, every change is coloured"
                          : "");
  const FlameDrawResult r = drawFlameGraph(*b_.trace, flame_diff_->b, flame_metric_, flame_zoom_, th, "", &flame_diff_->change);
  if (r.clicked) flame_zoom_ = *r.clicked == flame_zoom_ ? flame_diff_->b.frames[flame_zoom_].parent : *r.clicked;
}

}  // namespace fuselab::ui
