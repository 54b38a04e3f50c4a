// A GLFW window with an OpenGL 3.3 core context and glad loaded: visible for
// the desktop app, hidden as the context of offscreen pictures where there is
// a display (OffscreenContext.h). GLFW is initialised with the first window
// and terminated with the last.
#pragma once

#include <stdexcept>
#include <string>

struct GLFWwindow;

namespace fuselab {

// No display, no OpenGL 3.3, or GLFW failed: the message says which and what to do.
class GuiUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether DISPLAY or WAYLAND_DISPLAY names a display (on Linux; elsewhere true).
bool displayAvailable();

class GlfwWindow {
 public:
  struct Options {
    int width = 1280;
    int height = 720;
    std::string title = "fuselab";
    bool visible = true;
  };
  // Throws GuiUnavailable.
  explicit GlfwWindow(const Options& options);
  ~GlfwWindow();
  GlfwWindow(const GlfwWindow&) = delete;
  GlfwWindow& operator=(const GlfwWindow&) = delete;

  GLFWwindow* handle() const { return window_; }
  void makeCurrent();

 private:
  GLFWwindow* window_ = nullptr;
};

}  // namespace fuselab
