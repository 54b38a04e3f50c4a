// The tutorial features with a real OpenGL context (Xvfb): the panels drawn
// over the Workspace, and the pictures the command line writes.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>  // each window's content size, to find cut text

#include <memory>
#include <string>
#include <vector>

#include "app/gui/GlfwWindow.h"
#include "app/gui/OffscreenRenderer.h"
#include "app/gui/TutorialPanels.h"
#include "app/gui/Workspace.h"
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

// An OpenGL context (skipped visibly without one) and a Workspace showing a
// fixture trace, for the panels to draw over.
class TutorialPanels : public testing::Test {
 protected:
  void SetUp() override {
    try {
      context_ = std::make_unique<GlfwWindow>(GlfwWindow::Options{64, 64, "test", false});
    } catch (const GuiUnavailable& e) {
      GTEST_SKIP() << "no OpenGL context: " << e.what();
    }
  }
  void openFixture() {
    ws.openTrace(test::fixture("mlp_eager.json.gz").string());
    ws.waitIdle();
    ASSERT_TRUE(ws.trace());
  }

  std::unique_ptr<GlfwWindow> context_;
  Workspace ws;
};

TEST_F(TutorialPanels, AllThreePanelsDrawOverTheWorkspace) {
  ASSERT_NO_FATAL_FAILURE(openFixture());
  fuselab::TutorialPanels panels(ws);
  panels.show(true, true, true);
  OffscreenFrame frame;
  frame.width = 1600;
  frame.height = 1000;
  frame.frames = 4;
  const RgbaImage image = renderOffscreen(
      [&] {
        ws.drawFrame();
        panels.draw();
      },
      frame);
  EXPECT_EQ(image.width, 1600);
  EXPECT_EQ(image.height, 1000);
  writePng(test::scratchDir("TutorialPanels") / "panels.png", image);  // to look at
}

// Windows whose content is wider than the window: a line that does not wrap.
std::vector<std::string> overflowingPanels() {
  std::vector<std::string> out;
  for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
    const std::string name = w->Name;
    const bool panel = name == "Tutorial" || name.find("##sidebar") != std::string::npos;
    if (!panel || !w->WasActive) continue;
    const float content = w->ContentSize.x, room = w->ContentRegionRect.GetWidth();
    if (content > room + 1.0f)
      out.push_back(name + ": content " + std::to_string(content) + " px in " + std::to_string(room) + " px");
  }
  return out;
}

TEST_F(TutorialPanels, TextWrapsInNarrowPanels) {
  ws.settings().sidebar_width = 200;  // the narrowest the splitter allows
  ASSERT_NO_FATAL_FAILURE(openFixture());
  fuselab::TutorialPanels panels(ws);
  panels.show(true, false, false);
  OffscreenFrame frame;
  frame.width = 1200;
  frame.height = 900;
  frame.frames = 6;
  int drawn = 0;
  std::vector<std::string> overflowing;
  bool checked = false;
  const RgbaImage image = renderOffscreen(
      [&] {
        // Sizes settle over a few frames; then check what the frame before laid out.
        if (++drawn == frame.frames) {
          overflowing = overflowingPanels();
          checked = true;
        }
        if (drawn > 1) ImGui::SetWindowSize("Tutorial", ImVec2(300, 800));
        ws.drawFrame();
        panels.draw();
      },
      frame);
  ASSERT_TRUE(checked);
  for (const std::string& o : overflowing) ADD_FAILURE() << "text past the panel's edge: " << o;
  writePng(test::scratchDir("TutorialPanels.Narrow") / "narrow.png", image);  // to look at
}

TEST(TutorialPictures, TutorialComparePlotFromTheCommandLine) {
  const auto dir = test::scratchDir("TutorialPictures");
  const std::string mlp = test::fixture("mlp_eager.json.gz").string();
  const std::string linear = test::fixture("linear_eager.json.gz").string();

  auto r = test::runFuselab({"tutorial", "--step", "9", "--trace", mlp, "--screenshot", (dir / "t.png").string()}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("6 of 6 expectations met"), std::string::npos) << r.output;
  test::Image img = test::readPng(dir / "t.png");
  EXPECT_EQ(img.width, 1800);
  EXPECT_EQ(img.height, 1000);

  // A mismatch still writes the picture, and the exit code says "not met".
  r = test::runFuselab({"tutorial", "--step", "9", "--trace", linear, "--screenshot", (dir / "t2.png").string()}, dir);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(test::readPng(dir / "t2.png").width, 1800);

  r = test::runFuselab({"compare", mlp, linear, "--screenshot", (dir / "c.png").string()}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(test::readPng(dir / "c.png").width, 1800);

  r = test::runFuselab({"sweep", "--workload", "linear", "--device", "cpu", "--dtype", "fp32", "--tokens", "1,8,64",
                        "--rounds", "1", "--capture-steps", "0", "--plot", (dir / "s.png").string(), "--csv",
                        (dir / "s.csv").string()},
                       dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(test::readPng(dir / "s.png").width, 1400);
  EXPECT_TRUE(std::filesystem::exists(dir / "s.csv"));
}

}  // namespace
}  // namespace fuselab
