// A Workspace driven frame by frame like a user would (a hidden GL window
// provides the context): the fixture base of the timeline and run window
// tests. A derived SetUp calls start(path) and returns when it skipped
// (no display) or failed.
#pragma once

#include <gtest/gtest.h>
#include <imgui.h>

#include <cfloat>
#include <memory>
#include <string>

#include "app/gui/GlfwWindow.h"
#include "app/gui/UiContext.h"
#include "app/gui/Workspace.h"

namespace fuselab::test {

class DrivenWorkspace : public ::testing::Test {
 protected:
  // Opens `path` (a trace file, or a folder: a run) in a 1400x900 UI and
  // draws three frames.
  void start(const std::string& path) {
    try {
      window_ = std::make_unique<GlfwWindow>(GlfwWindow::Options{64, 64, "test", false});
    } catch (const GuiUnavailable& e) {
      GTEST_SKIP() << "no display (run under xvfb-run): " << e.what();
    }
    ui_ = std::make_unique<UiContext>(UiContextOptions{});
    ws_ = std::make_unique<Workspace>();
    ws_->openTrace(path);
    ws_->waitIdle();
    ASSERT_TRUE(ws_->trace()) << ws_->error();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(1400, 900);
    io.DeltaTime = 1.0f / 60;
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    frames(3);
  }
  void TearDown() override {
    ws_.reset();
    ui_.reset();
    window_.reset();
  }
  void frames(int n) {
    for (int i = 0; i < n; ++i) {
      ImGui::NewFrame();
      ws_->drawFrame();
      ImGui::Render();
      ImGui::GetIO().MouseWheel = 0;
    }
  }
  // Press and release the left button at `p`, a frame each.
  void click(ImVec2 p) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = p;
    frames(1);
    io.MouseDown[0] = true;
    frames(1);
    io.MouseDown[0] = false;
    frames(1);
  }

  std::unique_ptr<GlfwWindow> window_;
  std::unique_ptr<UiContext> ui_;
  std::unique_ptr<Workspace> ws_;
};

}  // namespace fuselab::test
