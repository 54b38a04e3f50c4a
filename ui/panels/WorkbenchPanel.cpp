#include "ui/panels/WorkbenchPanel.h"

#include <imgui.h>

#include <algorithm>
#include <string>

#include "profiling/capture_api/CapturePlan.h"

namespace fuselab::ui {

namespace {

// Which sizes a workload reads (see kernels/): the rest are hidden.
struct SizeUse {
  bool batch = true, seq = true, dim = true, hidden = true, out = false;
  const char* dim_label = "dim";
};

SizeUse sizesOf(const std::string& workload) {
  if (workload == "matmul_add") return {false, false, true, false, false, "size"};
  if (workload == "linear") return {true, false, true, false, true, "in"};
  return {};
}

// A logarithmic slider over [1, max]; Ctrl+click types a value (clamped).
bool sizeSlider(const char* label, int64_t& value, int64_t max) {
  const int64_t lo = 1;
  value = std::clamp<int64_t>(value, lo, max);
  return ImGui::SliderScalar(label, ImGuiDataType_S64, &value, &lo, &max, "%lld",
                             ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
}

}  // namespace

WorkbenchPanel::WorkbenchPanel(std::vector<WorkloadInfo> workloads) : workloads_(std::move(workloads)) {
  if (!workloads_.empty()) {
    run_.params = workloads_.front().defaults;
    run_.params.workload = workloads_.front().name;
  }
}

bool WorkbenchPanel::selectWorkload(const std::string& name) {
  for (size_t i = 0; i < workloads_.size(); ++i) {
    if (workloads_[i].name != name) continue;
    chosen_[{current_, run_.params.device}] = run_.params;
    const Device device = workloads_[i].cuda_only ? Device::Cuda : run_.params.device;
    current_ = i;
    const auto it = chosen_.find({i, device});
    run_.params = it != chosen_.end() ? it->second : workloads_[i].defaultsFor(device);
    run_.params.workload = name;
    run_.params.device = device;
    return true;
  }
  return false;
}

bool WorkbenchPanel::sizesChanged() const {
  if (workloads_.empty()) return false;
  const WorkloadParams& d = workloads_[current_].defaultsFor(run_.params.device);
  const WorkloadParams& p = run_.params;
  return p.batch != d.batch || p.seq != d.seq || p.dim != d.dim || p.hidden != d.hidden || p.out != d.out ||
         p.dtype != d.dtype;
}

void WorkbenchPanel::setDevice(Device device) {
  WorkloadParams& p = run_.params;
  if (p.device == device || workloads_.empty()) return;
  chosen_[{current_, p.device}] = p;
  const WorkloadInfo& info = workloads_[current_];
  if (const auto it = chosen_.find({current_, device}); it != chosen_.end()) {
    p = it->second;
  } else if (!sizesChanged()) {
    const std::string variant = p.variant;
    p = info.defaultsFor(device);
    p.variant = variant;
  }
  p.workload = info.name;
  p.device = device;
  if (device == Device::Cpu) p.graph = false;
}

bool WorkbenchPanel::drawSizes(const Theme& theme) {
  const SizeUse use = sizesOf(run_.params.workload);
  WorkloadParams& p = run_.params;
  bool changed = false;
  ImGui::PushItemWidth(-70 * theme.scale);
  if (use.batch) changed |= sizeSlider("batch", p.batch, WorkbenchRanges::kMaxBatch);
  if (use.seq) changed |= sizeSlider("seq", p.seq, WorkbenchRanges::kMaxSeq);
  if (use.dim) changed |= sizeSlider(use.dim_label, p.dim, WorkbenchRanges::kMaxDim);
  if (use.hidden) changed |= sizeSlider("hidden", p.hidden, WorkbenchRanges::kMaxHidden);
  if (use.out) changed |= sizeSlider("out", p.out, WorkbenchRanges::kMaxOut);
  if (p.workload == "tp_mlp") {  // a run: one process per rank (GPU with NCCL, CPU process with Gloo)
    int ranks = p.ranks;
    changed |= ImGui::SliderInt("ranks", &ranks, 1, 8, "%d", ImGuiSliderFlags_AlwaysClamp);
    p.ranks = ranks;
    int delayed = p.delay_rank;
    changed |= ImGui::SliderInt("late rank", &delayed, -1, p.ranks - 1, delayed < 0 ? "none" : "%d",
                                ImGuiSliderFlags_AlwaysClamp);
    p.delay_rank = std::min(delayed, p.ranks - 1);
    if (p.delay_rank >= 0) {
      int ms = static_cast<int>(p.delay_us / 1000);
      changed |= ImGui::SliderInt("delay ms", &ms, 0, 200, "%d", ImGuiSliderFlags_AlwaysClamp);
      p.delay_us = int64_t(ms) * 1000;
    }
  }
  ImGui::PopItemWidth();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl+click a slider to type a value");
  if (use.seq) ImGui::TextDisabled("%lld tokens", static_cast<long long>(p.batch * p.seq));
  return changed;
}

bool WorkbenchPanel::drawProgress(const WorkbenchStatus& status) {
  std::string text = status.phase;
  if (status.seconds_left) text += ", " + aboutSeconds(*status.seconds_left) + " left";
  ImGui::ProgressBar(static_cast<float>(status.fraction), ImVec2(-1, 0), text.c_str());
  if (status.estimated_s <= kLongCaptureSeconds) return false;
  const WorkloadParams smaller = smallerForCapture(run_.params, status.estimated_s, kQuickCaptureSeconds);
  ImGui::TextWrapped("This capture takes %s in all (one forward: %s).", aboutSeconds(status.estimated_s).c_str(),
                     roundedSeconds(status.forward_s).c_str());
  if (smaller.batch == run_.params.batch && smaller.seq == run_.params.seq) return false;
  const std::string label = "Capture " + std::to_string(smaller.batch * smaller.seq) + " tokens instead (" +
                            aboutSeconds(kQuickCaptureSeconds) + ")";
  if (!ImGui::Button(label.c_str())) return false;
  run_.params = smaller;
  return true;
}

WorkbenchAction WorkbenchPanel::draw(const Theme& theme, const WorkbenchStatus& status) {
  if (workloads_.empty()) {
    ImGui::TextDisabled("no workloads");
    return WorkbenchAction::None;
  }
  ImGui::PushID("workbench");
  bool changed = false;
  WorkloadParams& p = run_.params;

  for (size_t i = 0; i < workloads_.size(); ++i) {
    if (ImGui::RadioButton(workloads_[i].title.c_str(), current_ == i) && current_ != i) {
      selectWorkload(workloads_[i].name);
      changed = true;
    }
    if (ImGui::IsItemHovered() && !workloads_[i].description.empty())
      ImGui::SetTooltip("%s", workloads_[i].description.c_str());
  }
  const WorkloadInfo& info = workloads_[current_];
  if (info.variants.size() > 1) {
    const std::string shown = p.variant.empty() ? info.variants.front() : p.variant;
    ImGui::SetNextItemWidth(-70 * theme.scale);
    if (ImGui::BeginCombo("variant", shown.c_str())) {
      for (const std::string& v : info.variants)
        if (ImGui::Selectable(v.c_str(), v == shown)) {
          changed |= v != shown;
          p.variant = v;
        }
      ImGui::EndCombo();
    }
  }
  changed |= drawSizes(theme);

  static const char* const kDtypes[] = {"bf16", "fp16", "fp32"};
  static const DType kDtypeValues[] = {DType::BF16, DType::FP16, DType::FP32};
  for (int i = 0; i < 3; ++i) {
    if (i) ImGui::SameLine();
    if (ImGui::RadioButton(kDtypes[i], p.dtype == kDtypeValues[i]) && p.dtype != kDtypeValues[i]) {
      p.dtype = kDtypeValues[i];
      changed = true;
    }
  }
  // The device: CUDA needs a GPU; some workloads have no CPU version.
  ImGui::BeginDisabled(!status.gpu_available);
  if (ImGui::RadioButton("cuda", p.device == Device::Cuda) && p.device != Device::Cuda) {
    setDevice(Device::Cuda);
    changed = true;
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(info.cuda_only);
  if (ImGui::RadioButton("cpu", p.device == Device::Cpu) && p.device != Device::Cpu) {
    setDevice(Device::Cpu);
    changed = true;
  }
  ImGui::EndDisabled();
  if (!status.gpu_available && ImGui::IsItemHovered()) ImGui::SetTooltip("no CUDA GPU on this machine");
  ImGui::SameLine();
  ImGui::BeginDisabled(p.device != Device::Cuda);
  changed |= ImGui::Checkbox("CUDA graph", &p.graph);
  ImGui::SameLine();
  changed |= ImGui::Checkbox("Counters", &run_.counters);
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("After the steps, one more forward under CUPTI's range profiler: each kernel's measured DRAM "
                      "bytes and tensor pipe activity beside the model (needs permission to read GPU counters)");
  ImGui::EndDisabled();

  ImGui::PushItemWidth(-70 * theme.scale);
  changed |= ImGui::SliderInt("steps", &run_.steps, 1, WorkbenchRanges::kMaxSteps, "%d", ImGuiSliderFlags_AlwaysClamp);
  changed |= ImGui::SliderInt("warmup", &run_.warmup, 0, WorkbenchRanges::kMaxWarmup, "%d",
                              ImGuiSliderFlags_AlwaysClamp);
  ImGui::PopItemWidth();

  WorkbenchAction action = WorkbenchAction::None;
  if (ImGui::Button("Run")) action = WorkbenchAction::Run;
  ImGui::SameLine();
  if (ImGui::Checkbox("Live", &live_) && live_) action = WorkbenchAction::Run;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Capture again whenever a parameter changes");
  if (status.busy) {
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) action = WorkbenchAction::Cancel;
    if (drawProgress(status)) action = WorkbenchAction::RunSmaller;
  }
  if (live_ && changed && action == WorkbenchAction::None) action = WorkbenchAction::Run;
  ImGui::BeginDisabled(!status.gpu_available || status.busy || status.measuring_ceilings);
  if (ImGui::Button(status.measuring_ceilings ? "Measuring ceilings..." : "Measure ceilings"))
    action = WorkbenchAction::MeasureCeilings;
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("GEMM peaks and copy bandwidth of this GPU, the roof of the Roofline tab (a few seconds)");
  if (!status.message.empty()) {
    if (status.message_is_error) ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(220, 60, 50, 255));
    ImGui::TextWrapped("%s", status.message.c_str());
    if (status.message_is_error) ImGui::PopStyleColor();
  }
  ImGui::PopID();
  return action;
}

}  // namespace fuselab::ui
