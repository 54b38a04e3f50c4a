#include "app/gui/OffscreenContext.h"

#include <cstdlib>
#include <string_view>

#include "app/gui/EglContext.h"
#include "app/gui/GlfwWindow.h"

namespace fuselab {

OffscreenContext::OffscreenContext() {
  const char* env = std::getenv("FUSELAB_OFFSCREEN");
  const std::string_view choice = env ? env : "";
  if (!choice.empty() && choice != "egl" && choice != "glfw")
    throw GuiUnavailable("FUSELAB_OFFSCREEN must be egl or glfw, got '" + std::string(choice) + "'");
  std::string glfw_error;
  if (choice == "glfw" || (choice.empty() && displayAvailable())) {
    try {
      window_ = std::make_unique<GlfwWindow>(GlfwWindow::Options{64, 64, "fuselab offscreen", false});
      description_ = "a hidden GLFW window";
      return;
    } catch (const GuiUnavailable& e) {
      if (choice == "glfw") throw;
      glfw_error = e.what();  // a display that cannot be reached: EGL needs none
    }
  }
  try {
    egl_ = std::make_unique<EglContext>();
    description_ = "EGL, " + egl_->platform();
  } catch (const GuiUnavailable& e) {
    throw GuiUnavailable(std::string(e.what()) + (glfw_error.empty() ? "" : "\nand through a hidden window: " + glfw_error) +
                         "\nWhere EGL cannot render, run fuselab with a display or under Xvfb "
                         "(`xvfb-run -a fuselab screenshot --out shot.png`).");
  }
}

OffscreenContext::~OffscreenContext() = default;

}  // namespace fuselab
