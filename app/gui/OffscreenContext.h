// The OpenGL 3.3 context of offscreen pictures (screenshot, capture/compare/
// tutorial --screenshot, sweep --plot, File > Screenshot aside): a hidden
// GLFW window where there is a display, else EGL with no window at all
// (EglContext.h), so a headless server needs no Xvfb. FUSELAB_OFFSCREEN=egl
// or =glfw picks one. The context is current while this lives.
#pragma once

#include <memory>
#include <string>

namespace fuselab {

class EglContext;
class GlfwWindow;

class OffscreenContext {
 public:
  // Throws GuiUnavailable (GlfwWindow.h) saying what was tried.
  OffscreenContext();
  ~OffscreenContext();
  OffscreenContext(const OffscreenContext&) = delete;
  OffscreenContext& operator=(const OffscreenContext&) = delete;

  // "a hidden GLFW window" or "EGL, surfaceless (Mesa)": for messages and tests.
  const std::string& description() const { return description_; }

 private:
  std::unique_ptr<GlfwWindow> window_;
  std::unique_ptr<EglContext> egl_;
  std::string description_;
};

}  // namespace fuselab
