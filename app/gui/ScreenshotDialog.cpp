#include "app/gui/ScreenshotDialog.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <filesystem>

namespace fuselab {

void ScreenshotDialog::open(const std::string& default_path, ui::ThemeKind current_theme) {
  open_requested_ = true;
  if (path_.empty()) path_ = default_path;
  theme_ = current_theme == ui::ThemeKind::Light ? 1 : 0;
  error_.clear();
}

std::optional<ScreenshotRequest> ScreenshotDialog::draw() {
  if (open_requested_) {
    ImGui::OpenPopup("Screenshot");
    open_requested_ = false;
  }
  std::optional<ScreenshotRequest> out;
  if (!ImGui::BeginPopupModal("Screenshot", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return out;
  const float em = ImGui::GetFontSize();
  ImGui::TextUnformatted("Save a PNG of the current view.");
  ImGui::SetNextItemWidth(em * 30);
  ImGui::InputText("file", &path_);
  ImGui::RadioButton("whole window", &area_, 0);
  ImGui::SameLine();
  ImGui::RadioButton("timeline only", &area_, 1);
  ImGui::RadioButton("dark", &theme_, 0);
  ImGui::SameLine();
  ImGui::RadioButton("light (for slides and print)", &theme_, 1);
  ImGui::SetNextItemWidth(em * 10);
  ImGui::SliderInt("pixel scale", &scale_, 1, 4, "%dx");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("2x: twice the pixels in each direction, same layout, sharper text");
  if (!error_.empty()) ImGui::TextColored(ImVec4(0.95f, 0.4f, 0.4f, 1), "%s", error_.c_str());
  if (ImGui::Button("Save")) {
    std::filesystem::path p(path_);
    std::error_code ec;
    if (path_.empty()) {
      error_ = "enter a file name";
    } else if (!p.parent_path().empty() && !std::filesystem::is_directory(p.parent_path(), ec)) {
      error_ = "no such folder: " + p.parent_path().string();
    } else {
      if (p.extension() != ".png") p += ".png";
      out = ScreenshotRequest{p, area_ == 1 ? ScreenshotArea::Timeline : ScreenshotArea::Window,
                              theme_ == 1 ? ui::ThemeKind::Light : ui::ThemeKind::Dark, static_cast<float>(scale_)};
      ImGui::CloseCurrentPopup();
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
  return out;
}

}  // namespace fuselab
