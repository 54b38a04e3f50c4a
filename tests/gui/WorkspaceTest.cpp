// The Workspace behind the window: loading (and failing to load) traces,
// re-analysis, dialogs opened by shortcuts, screenshots taken from inside a
// running UI.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>
#include <GLFW/glfw3.h>

#include <fstream>
#include <memory>

#include "app/gui/GlfwWindow.h"
#include "app/gui/OffscreenRenderer.h"
#include "app/gui/UiContext.h"
#include "app/gui/Workspace.h"
#include "tests/support/AddEvent.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

TEST(Workspace, ABadFileKeepsThePreviousTraceAndSaysWhy) {
  auto dir = test::scratchDir("Workspace.BadFile");
  Workspace ws;
  ws.openTrace(test::fixture("linear_eager.json.gz").string());
  ws.waitIdle();
  ASSERT_TRUE(ws.trace()) << ws.error();
  auto before = ws.trace();
  EXPECT_EQ(ws.traceLabel(), "linear_eager.json.gz");
  EXPECT_EQ(ws.settings().recent_files.size(), 1u);

  auto bad = dir / "not_a_trace.json";
  std::ofstream(bad) << "[1, 2, 3";
  ws.openTrace(bad.string());
  ws.waitIdle();
  EXPECT_EQ(ws.trace(), before);
  EXPECT_EQ(ws.traceLabel(), "linear_eager.json.gz");
  EXPECT_NE(ws.error().find("not_a_trace.json"), std::string::npos) << ws.error();
  EXPECT_EQ(ws.settings().recent_files.size(), 1u) << "a file that failed is not a recent file";

  ws.openTrace((dir / "missing.json").string());
  ws.waitIdle();
  EXPECT_EQ(ws.trace(), before);
  EXPECT_NE(ws.error().find("no such file"), std::string::npos) << ws.error();

  ws.openTrace(test::fixture("mlp_eager.json.gz").string());
  ws.waitIdle();
  EXPECT_NE(ws.trace(), before);
  EXPECT_TRUE(ws.error().empty());
  EXPECT_EQ(ws.settings().recent_files.size(), 2u);
}

TEST(Workspace, CancelWhileOpeningKeepsThePreviousTrace) {
  Workspace ws;
  ws.openTrace(test::fixture("linear_eager.json.gz").string());
  ws.waitIdle();
  ASSERT_TRUE(ws.trace()) << ws.error();
  auto before = ws.trace();

  ws.openTrace(test::fixture("mlp_eager.json.gz").string());
  ASSERT_TRUE(ws.busy());
  ws.cancelLoading();  // the status bar's Cancel, while the file is being opened
  ws.waitIdle();
  EXPECT_FALSE(ws.busy());
  EXPECT_EQ(ws.trace(), before) << "a cancelled open never replaces the open trace";
  EXPECT_EQ(ws.traceLabel(), "linear_eager.json.gz");
  EXPECT_TRUE(ws.error().empty()) << "cancelling is not an error: " << ws.error();
  EXPECT_EQ(ws.notice(), "Cancelled: open mlp_eager.json.gz");
  EXPECT_EQ(ws.settings().recent_files.size(), 1u);

  // The loader is usable again afterwards.
  ws.openTrace(test::fixture("mlp_eager.json.gz").string());
  ws.waitIdle();
  EXPECT_NE(ws.trace(), before);
  EXPECT_EQ(ws.traceLabel(), "mlp_eager.json.gz");
}

TEST(Workspace, NewGapThresholdReanalysesTheSameTrace) {
  Workspace ws;
  ws.openTrace(test::fixture("mlp_eager.json.gz").string());
  ws.waitIdle();
  ASSERT_TRUE(ws.analysis());
  auto trace = ws.trace();
  const CriticalPathAnalysis* path = ws.timeline().criticalPath();
  ASSERT_TRUE(path);
  EXPECT_EQ(ws.analysis()->options.gap_threshold_ns, 30'000);
  ws.setGapThreshold(1'000'000);
  ws.waitIdle();
  EXPECT_EQ(ws.trace(), trace);
  EXPECT_EQ(ws.timeline().criticalPath(), path) << "the path does not depend on the threshold: kept, not redone";
  EXPECT_EQ(ws.analysis()->options.gap_threshold_ns, 1'000'000);
  EXPECT_EQ(ws.settings().gap_threshold_ns, 1'000'000);
}

TEST(Workspace, TracesFromMemoryAreShownAndAnalysed) {
  Workspace ws;
  auto t = std::make_shared<Trace>();
  uint32_t cpu = t->trackFor("1", "1");
  test::addEvent(*t, cpu, "aten::mm", 100, 50, Category::CpuOp);
  t->finalize();
  ws.showTrace(t, "live capture");
  ws.waitIdle();
  EXPECT_EQ(ws.trace().get(), t.get());
  EXPECT_EQ(ws.traceLabel(), "live capture");
  ASSERT_TRUE(ws.analysis());
  EXPECT_TRUE(ws.settings().recent_files.empty());
}

class WorkspaceUi : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      window_ = std::make_unique<GlfwWindow>(GlfwWindow::Options{64, 64, "test", false});
    } catch (const GuiUnavailable& e) {
      GTEST_SKIP() << "no display (run under xvfb-run): " << e.what();
    }
    ui_ = std::make_unique<UiContext>(UiContextOptions{});
    ws_.openTrace(test::fixture("mlp_eager.json.gz").string());
    ws_.waitIdle();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(1280, 800);
    io.DeltaTime = 1.0f / 60;
    io.KeyMap[ImGuiKey_Escape] = GLFW_KEY_ESCAPE;  // as the GLFW backend maps it in the window
    frames(2);
  }
  void frames(int n) {
    for (int i = 0; i < n; ++i) {
      ImGui::NewFrame();
      ws_.drawFrame();
      ImGui::Render();
    }
  }
  void press(int key, bool ctrl) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = ctrl;
    io.KeysDown[key] = true;
    frames(1);
    io.KeysDown[key] = false;
    io.KeyCtrl = false;
    frames(2);
  }
  bool windowShown(const char* name) {
    ImGuiWindow* w = ImGui::FindWindowByName(name);
    return w && w->Active;
  }

  std::unique_ptr<GlfwWindow> window_;
  std::unique_ptr<UiContext> ui_;
  Workspace ws_;
};

TEST_F(WorkspaceUi, ShortcutsOpenTheDialogs) {
  EXPECT_FALSE(windowShown("Open trace"));
  press(GLFW_KEY_O, true);
  EXPECT_TRUE(windowShown("Open trace"));
  press(GLFW_KEY_ESCAPE, false);
  EXPECT_FALSE(windowShown("Open trace"));

  press(GLFW_KEY_F1, false);
  EXPECT_TRUE(windowShown("Keys and mouse"));
  press(GLFW_KEY_ESCAPE, false);

  press(GLFW_KEY_P, true);
  EXPECT_TRUE(windowShown("Screenshot"));
  press(GLFW_KEY_ESCAPE, false);
  EXPECT_FALSE(windowShown("Screenshot"));

  press(GLFW_KEY_Q, true);
  EXPECT_TRUE(ws_.quitRequested());
}

TEST_F(WorkspaceUi, OffscreenScreenshotFromARunningUiLeavesItIntact) {
  ImGuiContext* mine = ImGui::GetCurrentContext();
  OffscreenFrame f;
  f.width = 640;
  f.height = 400;
  f.theme = ui::ThemeKind::Light;
  f.area = ScreenshotArea::Timeline;
  RgbaImage img = renderOffscreen(ws_, f);
  EXPECT_EQ(img.width, 640);
  EXPECT_EQ(img.height, 400);
  EXPECT_EQ(ImGui::GetCurrentContext(), mine);
  EXPECT_EQ(ws_.themeKind(), ui::ThemeKind::Dark) << "the override ends with the screenshot";
  frames(2);  // the window's UI keeps going
  EXPECT_TRUE(ws_.timeline().hasTrace());
}

}  // namespace
}  // namespace fuselab
