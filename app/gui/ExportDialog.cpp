#include "app/gui/ExportDialog.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <exception>
#include <filesystem>

#include "profiling/trace/ChromeTraceExport.h"

namespace fuselab {

void ExportDialog::open(const std::string& default_path) {
  open_requested_ = true;
  path_ = default_path;
  error_.clear();
}

std::optional<std::string> ExportDialog::draw(const Trace* trace) {
  if (open_requested_) {
    ImGui::OpenPopup("Export trace");
    open_requested_ = false;
  }
  std::optional<std::string> done;
  if (!ImGui::BeginPopupModal("Export trace", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return done;
  ImGui::TextUnformatted("Chrome/Kineto trace JSON: opens in Perfetto, chrome://tracing, HTA and fuselab.");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30);
  ImGui::InputText("file", &path_);
  if (ImGui::Checkbox("gzip (.json.gz)", &gzip_)) {
    bool has_gz = path_.size() >= 3 && path_.compare(path_.size() - 3, 3, ".gz") == 0;
    if (gzip_ && !has_gz) path_ += ".gz";
    if (!gzip_ && has_gz) path_.resize(path_.size() - 3);
  }
  if (!error_.empty()) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    ImGui::TextColored(ImVec4(0.95f, 0.4f, 0.4f, 1), "%s", error_.c_str());
    ImGui::PopTextWrapPos();
  }
  if (ImGui::Button("Save") && trace) {
    try {
      ExportOptions o;
      o.gzip = gzip_;
      exportChromeTrace(*trace, path_, o);
      done = "Exported " + path_;
      ImGui::CloseCurrentPopup();
    } catch (const std::exception& e) {  // the target is left as it was
      error_ = e.what();
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
  return done;
}

}  // namespace fuselab
