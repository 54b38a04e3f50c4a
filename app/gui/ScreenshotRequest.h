// What a screenshot shows and how: the whole window or just the timeline, in
// which theme, at how many pixels per logical pixel.
#pragma once

#include <filesystem>

#include "ui/Theme.h"

namespace fuselab {

// Roofline, Flame, Memory: that tab filling the image.
enum class ScreenshotArea { Window, Timeline, Roofline, Flame, Memory };

struct ScreenshotRequest {
  std::filesystem::path path;
  ScreenshotArea area = ScreenshotArea::Window;
  ui::ThemeKind theme = ui::ThemeKind::Dark;
  float pixel_scale = 1.0f;  // 2: twice the pixels in each direction, same layout
};

}  // namespace fuselab
