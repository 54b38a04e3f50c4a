#include "app/gui/MainMenu.h"

#include <imgui.h>

#include <algorithm>

namespace fuselab {

MenuCommands drawMainMenu(const Settings& settings, bool has_trace, bool can_export) {
  MenuCommands c;
  if (!ImGui::BeginMainMenuBar()) return c;
  if (ImGui::BeginMenu("File")) {
    c.open_trace = ImGui::MenuItem("Open trace...", "Ctrl+O");
    if (ImGui::BeginMenu("Open recent", !settings.recent_files.empty())) {
      for (const std::string& f : settings.recent_files)
        if (ImGui::MenuItem(f.c_str())) c.open_recent = f;
      ImGui::Separator();
      c.clear_recent = ImGui::MenuItem("Clear list");
      ImGui::EndMenu();
    }
    if (can_export) c.export_trace = ImGui::MenuItem("Export trace...", nullptr, false, has_trace);
    c.screenshot = ImGui::MenuItem("Screenshot...", "Ctrl+P");
    ImGui::Separator();
    c.quit = ImGui::MenuItem("Quit", "Ctrl+Q");
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    c.fit_all = ImGui::MenuItem("Fit all", "F", false, has_trace);
    ImGui::Separator();
    bool dark = settings.theme != "light";
    if (ImGui::MenuItem("Dark theme", nullptr, dark)) c.theme = ui::ThemeKind::Dark;
    if (ImGui::MenuItem("Light theme", nullptr, !dark)) c.theme = ui::ThemeKind::Light;
    ImGui::Separator();
    if (ImGui::MenuItem("Larger text", "Ctrl++")) c.ui_scale = std::min(settings.ui_scale + 0.125f, 3.0f);
    if (ImGui::MenuItem("Smaller text", "Ctrl+-")) c.ui_scale = std::max(settings.ui_scale - 0.125f, 0.75f);
    if (ImGui::MenuItem("Normal text size", "Ctrl+0")) c.ui_scale = 1.0f;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    c.keys_help = ImGui::MenuItem("Keys and mouse", "F1");
    c.about = ImGui::MenuItem("About fuselab");
    ImGui::EndMenu();
  }
  ImGui::EndMainMenuBar();
  return c;
}

}  // namespace fuselab
