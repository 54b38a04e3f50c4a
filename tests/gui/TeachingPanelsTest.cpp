// The teaching features with a real OpenGL context (Xvfb): the panels drawn
// over the Workspace, and the pictures the command line writes.
#include <gtest/gtest.h>

#include <memory>

#include "app/gui/GlfwWindow.h"
#include "app/gui/OffscreenRenderer.h"
#include "app/gui/TeachingPanels.h"
#include "app/gui/Workspace.h"
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

TEST(TeachingPanels, AllThreePanelsDrawOverTheWorkspace) {
  std::unique_ptr<GlfwWindow> context;
  try {
    context = std::make_unique<GlfwWindow>(GlfwWindow::Options{64, 64, "test", false});
  } catch (const GuiUnavailable& e) {
    GTEST_SKIP() << "no OpenGL context: " << e.what();
  }
  Workspace ws;
  ws.openTrace(test::fixture("mlp_eager.json.gz").string());
  ws.waitIdle();
  ASSERT_TRUE(ws.trace());
  TeachingPanels panels(ws);
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
  writePng(test::scratchDir("TeachingPanels") / "panels.png", image);  // to look at
}

TEST(TeachingPictures, TutorialComparePlotFromTheCommandLine) {
  const auto dir = test::scratchDir("TeachingPictures");
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
