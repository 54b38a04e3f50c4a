#include "app/gui/OpenTraceDialog.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace fuselab {

namespace fs = std::filesystem;

bool looksLikeTraceFile(const std::string& name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  auto ends = [&](const std::string& suffix) {
    return lower.size() >= suffix.size() && lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends(".json") || ends(".json.gz");
}

void OpenTraceDialog::open(const std::string& folder) {
  open_requested_ = true;
  list(folder);
}

void OpenTraceDialog::list(const std::string& folder) {
  entries_.clear();
  list_error_.clear();
  std::error_code ec;
  fs::path dir = fs::absolute(folder.empty() ? fs::current_path(ec) : fs::path(folder), ec).lexically_normal();
  folder_ = dir.string();
  for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code ec2;
    bool is_dir = it->is_directory(ec2);
    if (is_dir || looksLikeTraceFile(name)) entries_.push_back({name, is_dir});
  }
  if (ec) list_error_ = "cannot list " + folder_ + ": " + ec.message();
  std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    return a.is_dir != b.is_dir ? a.is_dir : a.name < b.name;
  });
}

std::optional<std::string> OpenTraceDialog::draw(const std::vector<std::string>& recent) {
  if (open_requested_) {
    ImGui::OpenPopup("Open trace");
    open_requested_ = false;
  }
  std::optional<std::string> chosen;
  const float em = ImGui::GetFontSize();
  ImGui::SetNextWindowSize(ImVec2(em * 44, em * 30), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal("Open trace", nullptr)) return chosen;

  ImGui::TextWrapped("A Chrome/Kineto trace as torch.profiler writes it (.json or .json.gz), or a folder "
                     "with one trace per rank of a distributed job. You can also drop files or a folder onto the window.");
  ImGui::SetNextItemWidth(-em * 6);
  bool enter = ImGui::InputTextWithHint("##path", "path/to/trace.json.gz", &path_, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  bool open_clicked = ImGui::Button("Open", ImVec2(-1, 0));
  if (enter || open_clicked) {
    std::error_code ec;
    if (fs::is_directory(path_, ec))
      list(path_);
    else if (!path_.empty())
      chosen = path_;
  }

  if (!recent.empty() && ImGui::CollapsingHeader("Recent files", ImGuiTreeNodeFlags_DefaultOpen)) {
    for (size_t i = 0; i < recent.size(); ++i) {
      ImGui::PushID(static_cast<int>(i));
      if (ImGui::Selectable(recent[i].c_str(), false, ImGuiSelectableFlags_AllowDoubleClick)) {
        path_ = recent[i];
        if (ImGui::IsMouseDoubleClicked(0)) chosen = path_;
      }
      ImGui::PopID();
    }
  }

  ImGui::Separator();
  ImGui::TextDisabled("%s", folder_.c_str());
  ImGui::BeginChild("##listing", ImVec2(0, -ImGui::GetFrameHeightWithSpacing()), true);
  if (!list_error_.empty()) ImGui::TextColored(ImVec4(0.9f, 0.4f, 0.4f, 1), "%s", list_error_.c_str());
  if (ImGui::Selectable("../")) list((fs::path(folder_) / "..").string());
  std::string navigate;
  for (const Entry& e : entries_) {
    std::string label = e.is_dir ? e.name + "/" : e.name;
    if (ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_AllowDoubleClick)) {
      std::string full = (fs::path(folder_) / e.name).string();
      if (e.is_dir) {
        navigate = full;
      } else {
        path_ = full;
        if (ImGui::IsMouseDoubleClicked(0)) chosen = full;
      }
    }
  }
  if (entries_.empty() && list_error_.empty()) ImGui::TextDisabled("(no folders or .json / .json.gz files here)");
  ImGui::EndChild();
  if (!navigate.empty()) list(navigate);

  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
  ImGui::SameLine();
  // The rank traces of a distributed job, one per file, open as one run.
  if (ImGui::Button("Open this folder as a run")) chosen = folder_;
  if (chosen) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
  return chosen;
}

}  // namespace fuselab
