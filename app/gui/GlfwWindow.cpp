#include "app/gui/GlfwWindow.h"

#include <glad/gl.h>
#include <GLFW/glfw3.h>

#include <cstdlib>
#include <mutex>

namespace fuselab {

namespace {

std::mutex g_mutex;
int g_windows = 0;
std::string g_last_error;

void onGlfwError(int code, const char* description) {
  g_last_error = std::string(description ? description : "unknown error") + " (GLFW error " + std::to_string(code) + ")";
}

std::string noDisplayHint() {
  return "fuselab needs a display for its window (screenshots render without one, through EGL). "
         "On a machine without one, run it under Xvfb, e.g. `xvfb-run -a fuselab open trace.json.gz`.";
}

}  // namespace

bool displayAvailable() {
#if defined(__linux__)
  const char* display = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  return (display && *display) || (wayland && *wayland);
#else
  return true;
#endif
}

GlfwWindow::GlfwWindow(const Options& options) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!displayAvailable())
    throw GuiUnavailable("no display: neither DISPLAY nor WAYLAND_DISPLAY is set. " + noDisplayHint());
  if (g_windows == 0) {
    glfwSetErrorCallback(onGlfwError);
    g_last_error.clear();
    if (!glfwInit()) throw GuiUnavailable("cannot start GLFW: " + g_last_error + ". " + noDisplayHint());
  }
  glfwDefaultWindowHints();
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, options.visible ? GLFW_TRUE : GLFW_FALSE);
  g_last_error.clear();
  window_ = glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
  if (!window_) {
    std::string why = g_last_error;
    if (g_windows == 0) glfwTerminate();
    throw GuiUnavailable("cannot create an OpenGL 3.3 core window: " + why);
  }
  glfwMakeContextCurrent(window_);
  if (gladLoadGL(glfwGetProcAddress) == 0) {
    glfwDestroyWindow(window_);
    if (g_windows == 0) glfwTerminate();
    throw GuiUnavailable("cannot load the OpenGL 3.3 functions (glad)");
  }
  ++g_windows;
}

GlfwWindow::~GlfwWindow() {
  std::lock_guard<std::mutex> lock(g_mutex);
  glfwDestroyWindow(window_);
  if (--g_windows == 0) glfwTerminate();
}

void GlfwWindow::makeCurrent() { glfwMakeContextCurrent(window_); }

}  // namespace fuselab
