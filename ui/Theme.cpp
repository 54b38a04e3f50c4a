#include "ui/Theme.h"

#include <algorithm>
#include <cstdint>

namespace fuselab::ui {

namespace {

constexpr ImU32 rgb(uint8_t r, uint8_t g, uint8_t b, uint8_t a = 255) { return IM_COL32(r, g, b, a); }

uint32_t fnv1a(std::string_view s) {
  uint32_t h = 2166136261u;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return h;
}

ImU32 scaleBrightness(ImU32 c, float f) {
  auto ch = [&](int shift) {
    float v = static_cast<float>((c >> shift) & 0xFF) * f;
    return static_cast<ImU32>(std::clamp(v, 0.0f, 255.0f)) << shift;
  };
  return ch(IM_COL32_R_SHIFT) | ch(IM_COL32_G_SHIFT) | ch(IM_COL32_B_SHIFT) | (c & IM_COL32_A_MASK);
}

}  // namespace

std::string_view themeName(ThemeKind k) { return k == ThemeKind::Light ? "light" : "dark"; }

std::optional<ThemeKind> parseThemeKind(std::string_view name) {
  if (name == "dark") return ThemeKind::Dark;
  if (name == "light") return ThemeKind::Light;
  return std::nullopt;
}

Theme makeTheme(ThemeKind kind, float scale) {
  Theme t;
  t.kind = kind;
  t.scale = std::clamp(scale, 0.5f, 4.0f);
  // Category hues are shared by both themes (a legend reads the same); the
  // light theme uses slightly deeper shades so they hold up on white.
  if (kind == ThemeKind::Dark) {
    t.canvas_bg = rgb(24, 26, 31);
    t.lane_bg[0] = rgb(30, 33, 39);
    t.lane_bg[1] = rgb(35, 38, 45);
    t.header_bg = rgb(48, 52, 62);
    t.header_text = rgb(225, 228, 235);
    t.label_bg = rgb(38, 41, 49);
    t.label_text = rgb(210, 214, 222);
    t.text = rgb(16, 18, 22);
    t.text_dim = rgb(150, 156, 168);
    t.ruler_bg = rgb(40, 43, 51);
    t.ruler_tick = rgb(170, 176, 188);
    t.grid = rgb(255, 255, 255, 18);
    t.step_line = rgb(200, 160, 255, 170);
    t.step_band[0] = rgb(70, 56, 100);
    t.step_band[1] = rgb(86, 68, 122);
    t.event_border = rgb(0, 0, 0, 90);
    t.selection = rgb(255, 255, 255);
    t.hover = rgb(255, 255, 255, 150);
    t.flow = rgb(255, 214, 90);
    t.user_annotation = rgb(150, 138, 190);
    t.cpu_op = rgb(92, 150, 230);
    t.launch = rgb(240, 160, 60);
    t.sync_call = rgb(214, 80, 80);
    t.kernel = rgb(80, 190, 120);
    t.memcpy = rgb(230, 110, 190);
    t.memset = rgb(190, 150, 90);
    t.gpu_annotation = rgb(140, 150, 170);
    t.other = rgb(150, 150, 150);
    t.gap[static_cast<int>(GapCause::HostWait)] = rgb(240, 70, 70, 110);
    t.gap[static_cast<int>(GapCause::KernelWait)] = rgb(235, 205, 70, 90);
    t.gap[static_cast<int>(GapCause::Other)] = rgb(120, 140, 255, 90);
    t.gap_sync_mark = rgb(255, 120, 120, 220);
    t.collective = rgb(80, 220, 230, 200);
    t.late_arrival = rgb(255, 80, 80);
    t.critical_path = rgb(255, 170, 40);
    t.activity[0] = rgb(45, 48, 56);
    t.activity[1] = rgb(80, 170, 110);
    t.activity[2] = rgb(80, 200, 230);
  } else {
    t.canvas_bg = rgb(250, 250, 252);
    t.lane_bg[0] = rgb(255, 255, 255);
    t.lane_bg[1] = rgb(244, 246, 249);
    t.header_bg = rgb(222, 226, 234);
    t.header_text = rgb(30, 34, 44);
    t.label_bg = rgb(236, 239, 244);
    t.label_text = rgb(30, 34, 44);
    t.text = rgb(10, 12, 16);
    t.text_dim = rgb(100, 106, 118);
    t.ruler_bg = rgb(232, 235, 241);
    t.ruler_tick = rgb(70, 76, 90);
    t.grid = rgb(0, 0, 0, 20);
    t.step_line = rgb(120, 70, 200, 170);
    t.step_band[0] = rgb(214, 200, 240);
    t.step_band[1] = rgb(198, 180, 232);
    t.event_border = rgb(0, 0, 0, 70);
    t.selection = rgb(0, 0, 0);
    t.hover = rgb(0, 0, 0, 120);
    t.flow = rgb(200, 120, 0);
    t.user_annotation = rgb(160, 146, 205);
    t.cpu_op = rgb(96, 150, 225);
    t.launch = rgb(240, 155, 50);
    t.sync_call = rgb(210, 70, 70);
    t.kernel = rgb(70, 175, 105);
    t.memcpy = rgb(220, 100, 180);
    t.memset = rgb(185, 140, 80);
    t.gpu_annotation = rgb(150, 160, 180);
    t.other = rgb(160, 160, 160);
    t.gap[static_cast<int>(GapCause::HostWait)] = rgb(230, 40, 40, 70);
    t.gap[static_cast<int>(GapCause::KernelWait)] = rgb(230, 190, 20, 80);
    t.gap[static_cast<int>(GapCause::Other)] = rgb(70, 100, 240, 60);
    t.gap_sync_mark = rgb(200, 30, 30, 220);
    t.collective = rgb(0, 140, 160, 220);
    t.late_arrival = rgb(220, 30, 30);
    t.critical_path = rgb(230, 120, 0);
    t.activity[0] = rgb(232, 232, 236);
    t.activity[1] = rgb(60, 160, 90);
    t.activity[2] = rgb(20, 150, 190);
  }
  return t;
}

void applyImGuiStyle(const Theme& theme) {
  ImGuiStyle style;
  if (theme.kind == ThemeKind::Dark)
    ImGui::StyleColorsDark(&style);
  else
    ImGui::StyleColorsLight(&style);
  style.WindowRounding = 0;
  style.FrameRounding = 3;
  style.GrabRounding = 3;
  style.ScrollbarRounding = 3;
  style.TabRounding = 3;
  style.WindowBorderSize = 1;
  style.FramePadding = ImVec2(6, 3);
  style.ItemSpacing = ImVec2(8, 5);
  style.CellPadding = ImVec2(6, 2);
  style.ScaleAllSizes(theme.scale);
  ImGui::GetStyle() = style;
}

ImU32 categoryColor(const Theme& t, Category c, std::string_view name) {
  switch (c) {
    case Category::CpuOp: return t.cpu_op;
    case Category::UserAnnotation: return t.user_annotation;
    case Category::CudaRuntime:
    case Category::CudaDriver:
      return isSynchronizeCall(name) ? t.sync_call : t.launch;
    case Category::Kernel: return t.kernel;
    case Category::Memcpy: return t.memcpy;
    case Category::Memset: return t.memset;
    case Category::Sync: return t.sync_call;
    case Category::GpuAnnotation: return t.gpu_annotation;
    default: return t.other;
  }
}

ImU32 eventColor(const Theme& t, Category c, std::string_view name) {
  // +-12% brightness by name: two different kernels side by side differ.
  float f = 0.88f + static_cast<float>(fnv1a(name) % 25) * 0.01f;
  return scaleBrightness(categoryColor(t, c, name), f);
}

ImU32 textColorOn(const Theme& t, ImU32 fill) {
  float r = static_cast<float>((fill >> IM_COL32_R_SHIFT) & 0xFF);
  float g = static_cast<float>((fill >> IM_COL32_G_SHIFT) & 0xFF);
  float b = static_cast<float>((fill >> IM_COL32_B_SHIFT) & 0xFF);
  float luminance = 0.299f * r + 0.587f * g + 0.114f * b;
  return luminance > 140 ? IM_COL32(12, 14, 18, 255) : (t.kind == ThemeKind::Dark ? IM_COL32(240, 242, 246, 255)
                                                                                 : IM_COL32(255, 255, 255, 255));
}

}  // namespace fuselab::ui
