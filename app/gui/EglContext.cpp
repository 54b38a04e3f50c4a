#include "app/gui/EglContext.h"

#include <glad/egl.h>
#include <glad/gl.h>

#include <cstdio>
#include <string>
#include <vector>

#include "app/gui/GlfwWindow.h"

namespace fuselab {

namespace {

std::string eglErrorText() {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", static_cast<unsigned>(eglGetError()));
  return std::string("EGL error ") + buf;
}

[[noreturn]] void fail(const std::string& what) {
  throw GuiUnavailable("cannot render offscreen through EGL: " + what);
}

// The displays to try, best first, with their names. Platforms come from
// EGL_EXT_platform_base: before a display is initialised glad cannot tell
// the EGL version, so eglGetPlatformDisplay (1.5) is not loaded yet.
std::vector<std::pair<EGLDisplay, std::string>> candidateDisplays() {
  std::vector<std::pair<EGLDisplay, std::string>> out;
  const bool platforms = GLAD_EGL_EXT_platform_base && eglGetPlatformDisplayEXT;
  if (platforms && GLAD_EGL_MESA_platform_surfaceless) {
    EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (d != EGL_NO_DISPLAY) out.emplace_back(d, "surfaceless (Mesa)");
  }
  if (platforms && GLAD_EGL_EXT_platform_device && GLAD_EGL_EXT_device_enumeration && eglQueryDevicesEXT) {
    EGLDeviceEXT devices[8];
    EGLint count = 0;
    if (eglQueryDevicesEXT(8, devices, &count))
      for (EGLint i = 0; i < count; ++i) {
        EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
        if (d != EGL_NO_DISPLAY) out.emplace_back(d, "device " + std::to_string(i));
      }
  }
  EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
  if (d != EGL_NO_DISPLAY) out.emplace_back(d, "default display");
  return out;
}

// An OpenGL (not ES) config, with pbuffers when `pbuffer`.
EGLConfig chooseConfig(EGLDisplay display, bool pbuffer) {
  const EGLint attributes[] = {EGL_SURFACE_TYPE, pbuffer ? EGL_PBUFFER_BIT : 0,
                               EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                               EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
                               EGL_NONE};
  EGLConfig config = nullptr;
  EGLint count = 0;
  if (!eglChooseConfig(display, attributes, &config, 1, &count) || count < 1) return nullptr;
  return config;
}

}  // namespace

EglContext::EglContext() {
  // glad's loader opens libEGL.so.1; the client extensions (platforms) come
  // with EGL_NO_DISPLAY, the display's own after eglInitialize.
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) fail("no libEGL.so.1 (install libegl1 and a driver: Mesa or NVIDIA)");
  std::string tried;
  for (const auto& [display, name] : candidateDisplays()) {
    EGLint major = 0, minor = 0;
    if (!eglInitialize(display, &major, &minor)) {
      tried += "\n  " + name + ": eglInitialize failed (" + eglErrorText() + ")";
      continue;
    }
    gladLoaderLoadEGL(display);
    const bool surfaceless = GLAD_EGL_KHR_surfaceless_context;
    EGLConfig config = chooseConfig(display, !surfaceless);
    if (!config || !eglBindAPI(EGL_OPENGL_API)) {
      tried += "\n  " + name + ": no OpenGL config (" + eglErrorText() + ")";
      continue;
    }
    const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                         EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                         EGL_NONE};
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attributes);
    if (context == EGL_NO_CONTEXT) {
      tried += "\n  " + name + ": no OpenGL 3.3 core context (" + eglErrorText() + ")";
      continue;
    }
    EGLSurface surface = EGL_NO_SURFACE;
    if (!surfaceless) {
      const EGLint pbuffer_attributes[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
      surface = eglCreatePbufferSurface(display, config, pbuffer_attributes);
    }
    if ((!surfaceless && surface == EGL_NO_SURFACE) || !eglMakeCurrent(display, surface, surface, context) ||
        !gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress))) {
      tried += "\n  " + name + ": cannot make the context current and load OpenGL (" + eglErrorText() + ")";
      if (surface != EGL_NO_SURFACE) eglDestroySurface(display, surface);
      eglDestroyContext(display, context);
      continue;
    }
    display_ = display;
    context_ = context;
    surface_ = surface;
    platform_ = name;
    return;
  }
  fail(tried.empty() ? "no EGL display" : "no display gave an OpenGL 3.3 core context:" + tried);
}

// The display stays initialised: EGL hands every context of the process the
// same one, and eglTerminate would end those of other EglContexts too.
EglContext::~EglContext() {
  eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (surface_) eglDestroySurface(display_, surface_);
  eglDestroyContext(display_, context_);
}

}  // namespace fuselab
