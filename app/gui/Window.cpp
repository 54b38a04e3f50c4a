#include "app/gui/Window.h"

#include <glad/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <csignal>
#include <iostream>
#include <vector>

#include "app/cli/Commands.h"
#include "app/Settings.h"
#include "app/gui/GlfwWindow.h"
#include "app/gui/OffscreenRenderer.h"
#include "app/gui/TutorialPanels.h"
#include "app/gui/UiContext.h"
#include "app/gui/Workbench.h"
#include "app/gui/Workspace.h"

namespace fuselab {

namespace {

// Files dropped onto the window since the last frame.
std::vector<std::string> g_dropped;

// SIGINT/SIGTERM close the window the normal way (settings saved).
volatile std::sig_atomic_t g_stop = 0;
void onStopSignal(int) { g_stop = 1; }

void onDrop(GLFWwindow*, int count, const char** paths) {
  for (int i = 0; i < count; ++i) g_dropped.emplace_back(paths[i]);
}

void saveScreenshot(Workspace& ws, const ScreenshotRequest& r, ImVec2 window_size) {
  ui::TimelineView& tl = ws.timeline();
  const double begin = tl.axis().start_ns, end = tl.axis().endNs();
  OffscreenFrame f;
  f.pixel_scale = r.pixel_scale;
  f.theme = r.theme;
  f.area = r.area;
  if (r.area == ScreenshotArea::Timeline) {
    f.width = static_cast<int>(tl.lastRectMax().x - tl.lastRectMin().x);
    f.height = static_cast<int>(tl.lastRectMax().y - tl.lastRectMin().y);
  } else {
    f.width = static_cast<int>(window_size.x);
    f.height = static_cast<int>(window_size.y);
  }
  // The picture shows the time range the user is looking at.
  if (tl.hasTrace()) tl.showRange(begin, end);
  try {
    writePng(r.path, renderOffscreen(ws, f));
    ws.notify("Saved screenshot " + r.path.string());
  } catch (const std::exception& e) {
    ws.notify(std::string("Screenshot failed: ") + e.what());
  }
  if (tl.hasTrace()) tl.showRange(begin, end);
}

// ImGui's options for the window: its input, the ini file in the settings
// folder (created if need be), and the scales.
UiContextOptions uiContextOptions(GLFWwindow* w, const std::filesystem::path& dir, const Settings& settings) {
  UiContextOptions ui_options;
  ui_options.input_window = w;
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (!ec) ui_options.ini_path = (dir / "imgui.ini").string();
  }
  ui_options.ui_scale = settings.ui_scale;
  {
    float sx = 1, sy = 1;
    glfwGetWindowContentScale(w, &sx, &sy);
    ui_options.pixel_scale = std::max(1.0f, sx);
  }
  return ui_options;
}

// One frame: the workspace and the tutorial panels drawn onto the canvas
// colour, then shown.
void renderFrame(GLFWwindow* w, Workspace& ws, TutorialPanels& tutorial) {
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  ws.drawFrame();
  tutorial.draw();
  ImGui::Render();
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(w, &fw, &fh);
  glViewport(0, 0, fw, fh);
  ImVec4 bg = ImGui::ColorConvertU32ToFloat4(ws.theme().canvas_bg);
  glClearColor(bg.x, bg.y, bg.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  glfwSwapBuffers(w);
}

// Frames until the user quits (asked first if a capture is unsaved) or a
// signal stops the program.
void runFrames(GLFWwindow* w, Workspace& ws, UiContext& ui, TutorialPanels& tutorial) {
  while (!ws.quitRequested() && !g_stop) {
    glfwPollEvents();
    if (glfwWindowShouldClose(w)) {  // the window's close button: ask first if a capture is unsaved
      glfwSetWindowShouldClose(w, GLFW_FALSE);
      ws.requestQuit();
      if (ws.quitRequested()) break;
    }
    if (glfwGetWindowAttrib(w, GLFW_ICONIFIED)) {
      glfwWaitEventsTimeout(0.1);
      continue;
    }
    if (!g_dropped.empty()) {
      // One file: a trace; a folder or several files: the ranks of a run.
      ws.requestOpenPaths(g_dropped);
      g_dropped.clear();
    }
    float sx = 1, sy = 1;
    glfwGetWindowContentScale(w, &sx, &sy);
    ui.setScale(ws.settings().ui_scale, std::max(1.0f, sx));

    renderFrame(w, ws, tutorial);

    if (auto request = ws.takeScreenshotRequest()) {
      ImVec2 size = ImGui::GetIO().DisplaySize;
      saveScreenshot(ws, *request, size);
      ui.makeCurrent();
    }
  }
}

// Remembers the window size and the panel layout.
void saveWindowSettings(GLFWwindow* w, Workspace& ws, const std::filesystem::path& settings_file) {
  int ww = 0, wh = 0;
  glfwGetWindowSize(w, &ww, &wh);
  Settings& s = ws.settings();
  if (ww > 0 && wh > 0) s.window_width = ww, s.window_height = wh;
  s.clamp();
  if (!settings_file.empty()) {
    try {
      saveSettings(s, settings_file);
    } catch (const std::exception& e) {
      std::cerr << "fuselab: settings not saved: " << e.what() << "\n";
    }
  }
}

}  // namespace

int openWindow(const std::string& trace_path) {
  return openWindowWith(trace_path.empty() ? std::vector<std::string>{} : std::vector<std::string>{trace_path});
}

int openWindowWith(const std::vector<std::string>& paths) {
  g_stop = 0;
  auto old_int = std::signal(SIGINT, onStopSignal);
  auto old_term = std::signal(SIGTERM, onStopSignal);
  const std::filesystem::path dir = settingsDir();
  const std::filesystem::path settings_file = defaultSettingsFile();
  std::string warning;
  Settings settings = loadSettings(settings_file, &warning);
  if (!warning.empty()) std::cerr << "fuselab: " << warning << "\n";

  std::unique_ptr<GlfwWindow> window;
  try {
    window = std::make_unique<GlfwWindow>(
        GlfwWindow::Options{settings.window_width, settings.window_height, "fuselab", true});
  } catch (const GuiUnavailable& e) {
    std::signal(SIGINT, old_int);
    std::signal(SIGTERM, old_term);
    std::cerr << "fuselab: cannot open the window: " << e.what() << "\n";
    return 2;
  }
  GLFWwindow* w = window->handle();
  glfwSwapInterval(1);
  glfwSetDropCallback(w, onDrop);
  // Below this the sidebar and the timeline no longer fit side by side (the
  // settings keep the same lower bound for the saved size).
  glfwSetWindowSizeLimits(w, 640, 400, GLFW_DONT_CARE, GLFW_DONT_CARE);
  UiContext ui(uiContextOptions(w, dir, settings));

  Workspace ws(settings);
  Workbench workbench(ws);      // workload, sizes, Run / Live
  TutorialPanels tutorial(ws);  // the Learn menu: tutorial, A/B compare, sweep
  ws.openPaths(paths);
  if (!warning.empty()) ws.notify(warning);

  runFrames(w, ws, ui, tutorial);

  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);
  // A trace still loading finishes first, so it is remembered as recent.
  ws.waitIdle();
  saveWindowSettings(w, ws, settings_file);
  return 0;
}

}  // namespace fuselab
