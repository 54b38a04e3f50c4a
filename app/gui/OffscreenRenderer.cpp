#include "app/gui/OffscreenRenderer.h"

#include <glad/gl.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "app/gui/UiContext.h"
#include "app/gui/Workspace.h"

namespace fuselab {

namespace {

// An RGBA8 colour renderbuffer in a framebuffer object, bound while alive.
class Framebuffer {
 public:
  Framebuffer(int w, int h) {
    GLint max_size = 0;
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
    if (w > max_size || h > max_size)
      throw std::runtime_error("screenshot of " + std::to_string(w) + "x" + std::to_string(h) +
                               " pixels is larger than this OpenGL allows (" + std::to_string(max_size) + ")");
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous_);
    glGenFramebuffers(1, &fbo_);
    glGenRenderbuffers(1, &color_);
    glBindRenderbuffer(GL_RENDERBUFFER, color_);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      release();
      throw std::runtime_error("cannot create an offscreen framebuffer of " + std::to_string(w) + "x" +
                               std::to_string(h) + " pixels");
    }
  }
  ~Framebuffer() { release(); }

 private:
  void release() {
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(previous_));
    if (color_) glDeleteRenderbuffers(1, &color_);
    if (fbo_) glDeleteFramebuffers(1, &fbo_);
    color_ = fbo_ = 0;
  }
  GLint previous_ = 0;
  GLuint fbo_ = 0, color_ = 0;
};

// Makes `ctx` current for its lifetime and restores the previous one.
class ImGuiContextSwitch {
 public:
  ImGuiContextSwitch() : previous_(ImGui::GetCurrentContext()) {}
  ~ImGuiContextSwitch() { ImGui::SetCurrentContext(previous_); }

 private:
  ImGuiContext* previous_;
};

}  // namespace

RgbaImage renderOffscreen(Workspace& workspace, const OffscreenFrame& frame) {
  workspace.setThemeOverride(frame.theme);
  try {
    RgbaImage image =
        renderOffscreen([&] { workspace.drawFrame(frame.area); }, frame, workspace.settings().ui_scale);
    workspace.setThemeOverride(std::nullopt);
    return image;
  } catch (...) {
    workspace.setThemeOverride(std::nullopt);
    throw;
  }
}

RgbaImage renderOffscreen(const std::function<void()>& draw, const OffscreenFrame& frame, float ui_scale) {
  if (frame.width < 16 || frame.height < 16)
    throw std::runtime_error("screenshot size must be at least 16x16, got " + std::to_string(frame.width) + "x" +
                             std::to_string(frame.height));
  const float scale = std::clamp(frame.pixel_scale, 0.5f, 4.0f);
  const int pw = static_cast<int>(std::lround(frame.width * scale));
  const int ph = static_cast<int>(std::lround(frame.height * scale));

  ImGuiContextSwitch restore;
  UiContextOptions options;
  options.ui_scale = ui_scale;
  options.pixel_scale = scale;
  UiContext ui(options);
  Framebuffer fb(pw, ph);

  const ui::Theme theme = ui::makeTheme(frame.theme, ui_scale);
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(frame.width), static_cast<float>(frame.height));
  io.DisplayFramebufferScale = ImVec2(scale, scale);
  io.DeltaTime = 1.0f / 60.0f;
  io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);

  for (int i = 0; i < std::max(1, frame.frames); ++i) {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    draw();
    ImGui::Render();
    glViewport(0, 0, pw, ph);
    ImVec4 bg = ImGui::ColorConvertU32ToFloat4(theme.canvas_bg);
    glClearColor(bg.x, bg.y, bg.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  }

  RgbaImage image;
  image.width = pw;
  image.height = ph;
  image.pixels.resize(static_cast<size_t>(pw) * ph * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, pw, ph, GL_RGBA, GL_UNSIGNED_BYTE, image.pixels.data());
  // OpenGL's first row is the bottom one.
  const size_t row = static_cast<size_t>(pw) * 4;
  std::vector<uint8_t> tmp(row);
  for (int y = 0; y < ph / 2; ++y) {
    uint8_t* a = &image.pixels[static_cast<size_t>(y) * row];
    uint8_t* b = &image.pixels[static_cast<size_t>(ph - 1 - y) * row];
    std::memcpy(tmp.data(), a, row);
    std::memcpy(a, b, row);
    std::memcpy(b, tmp.data(), row);
  }
  for (size_t i = 3; i < image.pixels.size(); i += 4) image.pixels[i] = 255;
  return image;
}

}  // namespace fuselab
