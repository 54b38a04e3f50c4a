// What the desktop window remembers between runs: theme, text size, the gap
// threshold, recent files, window and panel sizes. Stored as JSON in
// $XDG_CONFIG_HOME/fuselab/settings.json (or ~/.config/fuselab/), written
// atomically; ImGui's own imgui.ini (table sorting, column widths, dialog
// positions) lives beside it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "profiling/analysis/single/AnalysisOptions.h"
#include "profiling/analysis/work/Roofline.h"

namespace fuselab {

struct Settings {
  std::string theme = "dark";  // "dark" | "light"
  float ui_scale = 1.0f;       // text and widget size
  int64_t gap_threshold_ns = AnalysisOptions{}.gap_threshold_ns;
  std::vector<std::string> recent_files;  // newest first
  int window_width = 1600;
  int window_height = 940;
  float sidebar_width = 340;       // logical pixels at ui_scale 1
  float timeline_fraction = 0.64f;  // of the height right of the sidebar
  // Ceilings measured by `fuselab ceilings` (or the Workbench), one per GPU name.
  std::vector<Ceilings> measured_ceilings;

  static constexpr size_t kMaxRecentFiles = 10;

  // Puts `path` (made absolute) first in recent_files.
  void addRecentFile(const std::string& path);
  // Replaces the ceilings of c.gpu (or adds them).
  void setMeasuredCeilings(const Ceilings& c);
  // Brings every field into its valid range.
  void clamp();
};

// $XDG_CONFIG_HOME/fuselab, else $HOME/.config/fuselab; empty when neither is set.
std::filesystem::path settingsDir();

// Missing file: defaults. Unreadable or malformed file: defaults, and
// `warning` (if given) says what was wrong; never throws.
Settings loadSettings(const std::filesystem::path& file, std::string* warning = nullptr);
// Creates the folder if needed; throws FileWriteError (profiling/AtomicFile.h).
void saveSettings(const Settings& settings, const std::filesystem::path& file);

// settingsDir() / "settings.json", empty when there is no settings folder.
std::filesystem::path defaultSettingsFile();

}  // namespace fuselab
