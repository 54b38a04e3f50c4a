#include "app/gui/AboutDialog.h"
#include "app/capture/CaptureModule.h"

#include <glad/gl.h>
#include <imgui.h>

#include <string>

namespace fuselab {

namespace {
void row(const char* key, const std::string& value) {
  ImGui::TextDisabled("%s", key);
  ImGui::SameLine(ImGui::GetFontSize() * 8);
  ImGui::TextUnformatted(value.c_str());
}

std::string glString(GLenum name) {
  const auto* s = reinterpret_cast<const char*>(glGetString(name));
  return s ? s : "?";
}
}  // namespace

void AboutDialog::draw() {
  if (open_requested_) {
    if (!info_ && captureModuleLoaded()) info_ = captureBackend().systemInfo();
    if (!info_) module_summary_ = captureModuleSummary();
    ImGui::OpenPopup("About fuselab");
    open_requested_ = false;
  }
  if (!ImGui::BeginPopupModal("About fuselab", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::TextUnformatted("fuselab: see what PyTorch code dispatches on the CPU and runs on the GPU.");
  ImGui::Separator();
  row("fuselab", FUSELAB_VERSION);
  if (info_) {
    row("torch", info_->torch_version);
    row("CUDA", info_->cuda_runtime.empty() ? "not built in" : info_->cuda_runtime);
    row("CUPTI", info_->cupti.empty() ? "not built in" : info_->cupti);
    row("GPU", info_->gpu);
  } else {
    row("capture", module_summary_);
  }
  ImGui::Separator();
  row("OpenGL", glString(GL_VERSION));
  row("renderer", glString(GL_RENDERER));
  row("Dear ImGui", ImGui::GetVersion());
  ImGui::Spacing();
  if (ImGui::Button("Close") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

}  // namespace fuselab
