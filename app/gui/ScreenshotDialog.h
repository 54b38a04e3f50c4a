// File > Screenshot: where to save the PNG, whole window or timeline only,
// the theme (light reads well in slides), and a pixel scale for crisp images.
#pragma once

#include <optional>
#include <string>

#include "app/gui/ScreenshotRequest.h"

namespace fuselab {

class ScreenshotDialog {
 public:
  void open(const std::string& default_path, ui::ThemeKind current_theme);
  // Returns the request when the user presses Save.
  std::optional<ScreenshotRequest> draw();

 private:
  bool open_requested_ = false;
  std::string path_;
  int area_ = 0;   // 0 window, 1 timeline
  int theme_ = 0;  // 0 dark, 1 light
  int scale_ = 1;  // 1..4
  std::string error_;
};

}  // namespace fuselab
