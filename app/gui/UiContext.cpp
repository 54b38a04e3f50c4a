#include "app/gui/UiContext.h"

#include <imgui.h>
#include <imgui_freetype.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <filesystem>

namespace fuselab {

namespace {
constexpr float kBaseFontPx = 15.0f;     // DejaVu Sans
constexpr float kDefaultFontPx = 13.0f;  // ImGui's built-in font is drawn for 13 px
}  // namespace

const std::string& uiFontPath() {
  static const std::string path = [] {
    const char* candidates[] = {
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",  // Debian, Ubuntu
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",           // Fedora
        "/usr/share/fonts/TTF/DejaVuSans.ttf",              // Arch
        "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    };
    std::error_code ec;
    for (const char* c : candidates)
      if (std::filesystem::is_regular_file(c, ec)) return std::string(c);
    return std::string();
  }();
  return path;
}

UiContext::UiContext(const UiContextOptions& options)
    : ini_path_(options.ini_path), ui_scale_(options.ui_scale), pixel_scale_(options.pixel_scale) {
  IMGUI_CHECKVERSION();
  context_ = ImGui::CreateContext();
  ImGui::SetCurrentContext(context_);
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = ini_path_.empty() ? nullptr : ini_path_.c_str();
  if (options.input_window) {
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
    ImGui_ImplGlfw_InitForOpenGL(options.input_window, true);
    has_input_backend_ = true;
  }
  ImGui_ImplOpenGL3_Init("#version 330 core");
  buildFonts();
}

UiContext::~UiContext() {
  ImGuiContext* previous = ImGui::GetCurrentContext();
  ImGui::SetCurrentContext(context_);
  ImGui_ImplOpenGL3_Shutdown();
  if (has_input_backend_) ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext(context_);
  ImGui::SetCurrentContext(previous == context_ ? nullptr : previous);
}

void UiContext::makeCurrent() { ImGui::SetCurrentContext(context_); }

void UiContext::setScale(float ui_scale, float pixel_scale) {
  if (ui_scale == ui_scale_ && pixel_scale == pixel_scale_) return;
  ui_scale_ = ui_scale;
  pixel_scale_ = pixel_scale;
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  buildFonts();
  ImGui_ImplOpenGL3_CreateFontsTexture();
}

void UiContext::buildFonts() {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  // Rasterise at the framebuffer's density and draw at 1/pixel_scale, so
  // text stays sharp in 2x screenshots and on HiDPI screens.
  const float density = std::clamp(pixel_scale_, 0.5f, 4.0f);
  const float scale = std::clamp(ui_scale_, 0.5f, 4.0f);
  ImFontConfig cfg;
  cfg.OversampleH = 2;
  cfg.OversampleV = 1;
  const std::string& path = uiFontPath();
  ImFont* font = nullptr;
  if (!path.empty()) font = io.Fonts->AddFontFromFileTTF(path.c_str(), kBaseFontPx * scale * density, &cfg);
  if (!font) {
    ImFontConfig def;
    def.SizePixels = kDefaultFontPx * scale * density;
    io.Fonts->AddFontDefault(&def);
  }
  io.Fonts->FontBuilderIO = ImGuiFreeType::GetBuilderForFreeType();
  io.Fonts->FontBuilderFlags = ImGuiFreeTypeBuilderFlags_LightHinting;
  io.Fonts->Build();
  io.FontGlobalScale = 1.0f / density;
}

}  // namespace fuselab
