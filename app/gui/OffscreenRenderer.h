// Renders the Workspace into an offscreen framebuffer of a given size and
// reads the pixels back: headless screenshots (a hidden GLFW window provides
// the GL context; under Xvfb where there is no display) and File >
// Screenshot in the window (same context, its own ImGui context, so the
// window's state is untouched).
#pragma once

#include <functional>

#include "app/gui/Screenshot.h"
#include "app/gui/ScreenshotRequest.h"

namespace fuselab {

class Workspace;

struct OffscreenFrame {
  int width = 1280;  // logical pixels (the layout)
  int height = 720;
  float pixel_scale = 1.0f;  // image pixels per logical pixel
  ui::ThemeKind theme = ui::ThemeKind::Dark;
  ScreenshotArea area = ScreenshotArea::Window;
  int frames = 3;  // ImGui settles auto-sized items over a couple of frames
};

// Needs a current OpenGL 3.3 context. Restores the ImGui context that was
// current and the framebuffer binding. Throws std::runtime_error (too large
// for the GPU, incomplete framebuffer).
RgbaImage renderOffscreen(Workspace& workspace, const OffscreenFrame& frame);

// The same for any UI: `draw` is called between NewFrame and Render of each
// frame (frame.area is not used) and lays out its own windows over the
// display. ui_scale: text size as in Settings::ui_scale. Used for pictures
// other than the workspace (A/B comparisons, sweep plots).
RgbaImage renderOffscreen(const std::function<void()>& draw, const OffscreenFrame& frame, float ui_scale = 1.0f);

}  // namespace fuselab
