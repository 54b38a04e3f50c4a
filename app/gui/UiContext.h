// One Dear ImGui context with its OpenGL 3 renderer (and, for the desktop
// window, the GLFW input backend) and the UI font. The window and the
// offscreen screenshot renderer each own one; both draw the same Workspace.
#pragma once

#include <string>

struct GLFWwindow;
struct ImGuiContext;

namespace fuselab {

struct UiContextOptions {
  GLFWwindow* input_window = nullptr;  // GLFW mouse/keyboard backend when set
  std::string ini_path;                // where ImGui keeps its state; empty: nowhere
  float ui_scale = 1.0f;               // text size (1 = 15 px)
  float pixel_scale = 1.0f;            // framebuffer pixels per logical pixel
};

class UiContext {
 public:
  // The GL context must be current. Makes the new ImGui context current.
  explicit UiContext(const UiContextOptions& options);
  ~UiContext();  // restores no context: make the one you need current after
  UiContext(const UiContext&) = delete;
  UiContext& operator=(const UiContext&) = delete;

  void makeCurrent();
  ImGuiContext* get() const { return context_; }
  // Re-rasterises the font (call between frames, this context current).
  void setScale(float ui_scale, float pixel_scale);
  float uiScale() const { return ui_scale_; }
  float pixelScale() const { return pixel_scale_; }

 private:
  void buildFonts();

  ImGuiContext* context_ = nullptr;
  bool has_input_backend_ = false;
  std::string ini_path_;  // ImGui keeps a pointer to it
  float ui_scale_ = 1.0f;
  float pixel_scale_ = 1.0f;
};

// The TrueType font used for the UI, or "" when none of the usual system
// locations has it (ImGui's built-in font is used then).
const std::string& uiFontPath();

}  // namespace fuselab
