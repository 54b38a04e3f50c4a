// An OpenGL 3.3 core context with no window and no display, through EGL:
// Mesa's surfaceless platform, an EGL device (NVIDIA's driver on a GPU
// server), or the default display, in that order. libEGL is opened at run
// time by glad's loader, so fuselab does not link it. For offscreen
// rendering only: the caller draws into its own framebuffer object.
#pragma once

#include <string>

namespace fuselab {

class EglContext {
 public:
  // Creates the context and makes it current on this thread. Throws
  // GuiUnavailable (GlfwWindow.h) saying which step failed.
  EglContext();
  ~EglContext();
  EglContext(const EglContext&) = delete;
  EglContext& operator=(const EglContext&) = delete;

  // "surfaceless (Mesa)", "device", or "default display": for messages.
  const std::string& platform() const { return platform_; }

 private:
  void* display_ = nullptr;  // EGLDisplay
  void* context_ = nullptr;  // EGLContext
  void* surface_ = nullptr;  // EGLSurface: a 16x16 pbuffer where surfaceless contexts are not supported
  std::string platform_;
};

}  // namespace fuselab
