#include "ui/panels/TutorialPanel.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "ui/WrappedText.h"

namespace fuselab::ui {

namespace {

ImVec4 toVec4(ImU32 c) { return ImGui::ColorConvertU32ToFloat4(c); }

ImU32 statusColor(const Theme& th, ExpectationStatus s) {
  switch (s) {
    case ExpectationStatus::Met: return th.kernel;
    case ExpectationStatus::NotMet: return th.sync_call;
    case ExpectationStatus::Unavailable: return th.text_dim;
  }
  return th.text_dim;
}

const char* statusLabel(ExpectationStatus s) {
  switch (s) {
    case ExpectationStatus::Met: return "met";
    case ExpectationStatus::NotMet: return "NOT MET";
    case ExpectationStatus::Unavailable: return "cannot check";
  }
  return "?";
}

void wrapped(const std::string& text, ImU32 color) {
  ImGui::PushStyleColor(ImGuiCol_Text, toVec4(color));
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

// A filled box around wrapped text: the question a learner answers first.
void questionBox(const std::string& label, const std::string& text, const Theme& th) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float pad = 6 * th.scale;
  const float w = ImGui::GetContentRegionAvail().x;
  const std::string full = label + text;
  const ImVec2 size = ImGui::CalcTextSize(full.c_str(), nullptr, false, w - 2 * pad);
  const ImVec2 p = ImGui::GetCursorScreenPos();
  dl->AddRectFilled(p, ImVec2(p.x + w, p.y + size.y + 2 * pad), th.header_bg, 4 * th.scale);
  dl->AddRectFilled(p, ImVec2(p.x + 3 * th.scale, p.y + size.y + 2 * pad), th.launch, 2 * th.scale);
  ImGui::SetCursorScreenPos(ImVec2(p.x + pad, p.y + pad));
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w - 2 * pad);
  ImGui::PushStyleColor(ImGuiCol_Text, toVec4(th.header_text));
  ImGui::TextUnformatted(full.c_str());
  ImGui::PopStyleColor();
  ImGui::PopTextWrapPos();
  ImGui::SetCursorScreenPos(ImVec2(p.x, p.y + size.y + 2 * pad));
  ImGui::Dummy(ImVec2(w, 2 * th.scale));
}

}  // namespace

TutorialActions TutorialPanel::draw(const std::vector<TutorialStepView>& steps, size_t current,
                                    const TutorialCheck& check, const Trace* trace, bool has_open_trace,
                                    const Theme& th, TimelineView& timeline) {
  TutorialActions act;
  if (steps.empty()) {
    ImGui::TextDisabled("No tutorial steps loaded.");
    return act;
  }
  current = std::min(current, steps.size() - 1);
  const TutorialStepView& st = steps[current];
  if (guess_for_ != current) {
    guess_for_ = current;
    guess_[0] = '\0';
  }

  // Navigation.
  ImGui::BeginDisabled(current == 0);
  if (ImGui::ArrowButton("##prev", ImGuiDir_Left)) act.go_to = current - 1;
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::SetNextItemWidth(std::max(120.0f, ImGui::GetContentRegionAvail().x - ImGui::GetFrameHeight() - 8 * th.scale));
  char preview[256];
  std::snprintf(preview, sizeof preview, "%d. %s", st.step, st.title.c_str());
  if (ImGui::BeginCombo("##step", preview)) {
    for (size_t i = 0; i < steps.size(); ++i) {
      char item[256];
      std::snprintf(item, sizeof item, "%d. %s", steps[i].step, steps[i].title.c_str());
      if (ImGui::Selectable(item, i == current)) act.go_to = i;
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(current + 1 >= steps.size());
  if (ImGui::ArrowButton("##next", ImGuiDir_Right)) act.go_to = current + 1;
  ImGui::EndDisabled();

  // The step.
  ImGui::TextDisabled("%s", st.part.c_str());
  wrapped("Runs: " + st.run_text, th.text_dim);
  ImGui::Spacing();
  wrapped(st.explanation, th.label_text);
  ImGui::Spacing();
  questionBox("Guess first: ", st.guess_first, th);
  ImGui::SetNextItemWidth(-1);
  ImGui::InputTextWithHint("##guess", "your guess (before you run)", guess_, sizeof guess_);

  // Run / check.
  ImGui::Spacing();
  if (check.busy) {
    char overlay[128];
    std::snprintf(overlay, sizeof overlay, "%s", check.phase.empty() ? "running" : check.phase.c_str());
    ImGui::ProgressBar(static_cast<float>(check.fraction), ImVec2(-80 * th.scale, 0), overlay);
    ImGui::SameLine();
    if (ImGui::Button("Cancel", ImVec2(-1, 0))) act.cancel = true;
  } else {
    if (ImGui::Button("Run")) act.run = device_ == 0 ? "cuda" : "cpu";
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Capture the step's workload (%s) and check it", st.run_text.c_str());
    ImGui::SameLine();
    ImGui::SetNextItemWidth(70 * th.scale);
    const char* devices[] = {gpu_available_ ? "cuda" : "cuda (no GPU)", "cpu"};
    ImGui::Combo("##device", &device_, devices, 2);
    ImGui::SameLine();
    ImGui::BeginDisabled(!has_open_trace);
    if (ImGui::Button("Check open trace")) act.check_open_trace = true;
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip(has_open_trace ? "Check the trace in the timeline (e.g. a torch.profiler trace) against "
                                         "this step's expectations"
                                       : "Open a trace first (File > Open)");
    ImGui::EndDisabled();
  }
  if (!check.error.empty()) wrapped(check.error, th.sync_call);
  if (check.offer_cpu && !check.busy) {
    if (ImGui::Button("Run on the CPU instead")) {
      device_ = 1;
      act.run = "cpu";
    }
  }

  if (!st.look_for.empty() && ImGui::TreeNode("Look for")) {
    for (const auto& l : st.look_for) wrappedBullet(l);
    ImGui::TreePop();
  }
  ImGui::Separator();
  drawResults(st, check, trace, th, timeline);

  if (!st.compare_with.empty()) {
    ImGui::Separator();
    ImGui::TextUnformatted("Compare (A/B) with:");
    for (int other : st.compare_with) {
      ImGui::SameLine();
      char label[32];
      std::snprintf(label, sizeof label, "step %d", other);
      if (ImGui::SmallButton(label)) act.compare_with = other;
    }
  }
  return act;
}

void TutorialPanel::setGpuAvailable(bool available) {
  if (!available && gpu_available_) device_ = 1;
  gpu_available_ = available;
}

void TutorialPanel::drawResults(const TutorialStepView& st, const TutorialCheck& check, const Trace* trace,
                                const Theme& th, TimelineView& timeline) {
  if (check.results.empty()) {
    ImGui::TextUnformatted("Expectations (checked after a run):");
    for (const auto& t : st.expectation_texts) wrappedBullet(t);
    return;
  }
  size_t met = 0;
  for (const auto& r : check.results) met += r.met();
  ImGui::Text("%zu of %zu expectations met", met, check.results.size());
  if (!check.checked.empty()) ImGui::TextDisabled("checked: %s", check.checked.c_str());
  for (size_t i = 0; i < check.results.size() && i < st.expectation_texts.size(); ++i) {
    const ExpectationResult& r = check.results[i];
    ImGui::PushID(static_cast<int>(i));
    const ImU32 color = statusColor(th, r.status);
    ImGui::PushStyleColor(ImGuiCol_Text, toVec4(color));
    ImGui::TextUnformatted(statusLabel(r.status));
    ImGui::PopStyleColor();
    ImGui::SameLine();
    wrappedText(st.expectation_texts[i]);
    ImGui::Indent();
    wrapped("measured: " + r.measured, th.label_text);
    wrapped(r.explanation, th.text_dim);
    if (!r.met() && i < st.expectation_hints.size() && !st.expectation_hints[i].empty())
      wrapped("hint: " + st.expectation_hints[i], th.launch);
    if (!r.evidence.empty() && trace) {
      if (ImGui::SmallButton("Find on timeline")) timeline.select(r.evidence.front(), true);
      if (r.evidence.size() > 1) {
        ImGui::SameLine();
        char head[64];
        std::snprintf(head, sizeof head, "%zu events###evidence", r.evidence.size());
        if (ImGui::TreeNode(head)) {
          for (size_t k = 0; k < r.evidence.size(); ++k) {
            ImGui::PushID(static_cast<int>(k));
            const std::string label = describeEvidence(*trace, r.evidence[k]);
            if (ImGui::Selectable(label.c_str(), timeline.selected() == r.evidence[k]))
              timeline.select(r.evidence[k], true);
            ImGui::PopID();
          }
          ImGui::TreePop();
        }
      }
    }
    ImGui::Unindent();
    ImGui::Spacing();
    ImGui::PopID();
  }
}

}  // namespace fuselab::ui
