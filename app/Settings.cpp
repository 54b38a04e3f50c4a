#include "app/Settings.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "profiling/trace/AtomicFile.h"

namespace fuselab {

void Settings::addRecentFile(const std::string& path) {
  std::error_code ec;
  std::string abs = std::filesystem::absolute(path, ec).lexically_normal().string();
  if (ec) abs = path;
  recent_files.erase(std::remove(recent_files.begin(), recent_files.end(), abs), recent_files.end());
  recent_files.insert(recent_files.begin(), abs);
  if (recent_files.size() > kMaxRecentFiles) recent_files.resize(kMaxRecentFiles);
}

void Settings::clamp() {
  if (theme != "dark" && theme != "light") theme = "dark";
  if (!(ui_scale >= 0.75f && ui_scale <= 3.0f)) ui_scale = 1.0f;
  gap_threshold_ns = std::clamp<int64_t>(gap_threshold_ns, 0, 1'000'000'000);
  window_width = std::clamp(window_width, 640, 16384);
  window_height = std::clamp(window_height, 400, 16384);
  if (!(sidebar_width >= 200 && sidebar_width <= 1200)) sidebar_width = 340;
  if (!(timeline_fraction >= 0.2f && timeline_fraction <= 0.9f)) timeline_fraction = 0.64f;
  if (recent_files.size() > kMaxRecentFiles) recent_files.resize(kMaxRecentFiles);
}

std::filesystem::path settingsDir() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "fuselab";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".config" / "fuselab";
  return {};
}

Settings loadSettings(const std::filesystem::path& file, std::string* warning) {
  Settings s;
  std::error_code ec;
  if (file.empty() || !std::filesystem::exists(file, ec)) return s;
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) {
    if (warning) *warning = "cannot read " + file.string() + "; using default settings";
    return s;
  }
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    if (warning) *warning = file.string() + " is not a JSON object; using default settings";
    return s;
  }
  // Each field on its own: one bad value does not cost the others.
  auto take = [&](const char* key, auto& field) {
    auto it = j.find(key);
    if (it == j.end()) return;
    try {
      field = it->template get<std::remove_reference_t<decltype(field)>>();
    } catch (const nlohmann::json::exception&) {
      if (warning) *warning = file.string() + ": ignored '" + key + "' (wrong type)";
    }
  };
  take("theme", s.theme);
  take("ui_scale", s.ui_scale);
  take("gap_threshold_ns", s.gap_threshold_ns);
  take("recent_files", s.recent_files);
  take("window_width", s.window_width);
  take("window_height", s.window_height);
  take("sidebar_width", s.sidebar_width);
  take("timeline_fraction", s.timeline_fraction);
  s.clamp();
  return s;
}

void saveSettings(const Settings& s, const std::filesystem::path& file) {
  nlohmann::json j = {
      {"theme", s.theme},
      {"ui_scale", s.ui_scale},
      {"gap_threshold_ns", s.gap_threshold_ns},
      {"recent_files", s.recent_files},
      {"window_width", s.window_width},
      {"window_height", s.window_height},
      {"sidebar_width", s.sidebar_width},
      {"timeline_fraction", s.timeline_fraction},
  };
  std::error_code ec;
  if (!file.parent_path().empty()) std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) throw FileWriteError("cannot create " + file.parent_path().string() + ": " + ec.message());
  writeFileAtomically(file, j.dump(2) + "\n");
}

}  // namespace fuselab
