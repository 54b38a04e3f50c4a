// `fuselab screenshot` as a user runs it: a subprocess writing a PNG.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "app/gui/Screenshot.h"
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/BuildPaths.h"
#include "tests/support/TestPaths.h"
#include "ui/Theme.h"

namespace fuselab {
namespace {

using test::readPng;
using test::runFuselab;

size_t distinctColours(const test::Image& img) {
  std::set<uint32_t> seen;
  for (size_t i = 0; i + 3 < img.rgba.size(); i += 4)
    seen.insert(uint32_t(img.rgba[i]) << 16 | uint32_t(img.rgba[i + 1]) << 8 | img.rgba[i + 2]);
  return seen.size();
}

TEST(ScreenshotCommand, EmptyWorkbenchIsAValidPngOfTheRightSize) {
  auto dir = test::scratchDir("ScreenshotCommand.Empty");
  auto out = dir / "x.png";
  auto r = runFuselab({"screenshot", "--out", out.string(), "--width", "1280", "--height", "720"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string why;
  test::Image img = readPng(out, &why);
  ASSERT_EQ(img.width, 1280) << why;
  ASSERT_EQ(img.height, 720);
  // Menu, panels, text: many colours, not one flat fill.
  EXPECT_GT(distinctColours(img), 20u);
  // No temporary files left beside it.
  size_t files = 0;
  for (auto& e : std::filesystem::directory_iterator(dir)) files += e.path().extension() == ".png" || e.path().filename().string().find(".tmp") != std::string::npos;
  EXPECT_EQ(files, 1u);
}

TEST(ScreenshotCommand, CaptureWritesTheTraceThenThePictureOfIt) {
  auto dir = test::scratchDir("ScreenshotCommand.Capture");
  auto trace = dir / "linear.json.gz", png = dir / "linear.png";
  auto r = runFuselab({"capture", "--workload", "linear", "--device", "cpu", "--steps", "2", "--out", trace.string(),
                       "--screenshot", png.string()},
                      dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(trace));
  EXPECT_NE(r.output.find("wrote " + png.string() + " (1600x900)"), std::string::npos) << r.output;
  test::Image img = readPng(png);
  ASSERT_EQ(img.width, 1600);
  EXPECT_GT(distinctColours(img), 20u);
}

TEST(ScreenshotCommand, RooflineAreaDrawsTheKernelsUnderTheRoof) {
  auto dir = test::scratchDir("ScreenshotCommand.Roofline");
  auto trace = test::fixture("mlp_eager.json.gz");
  auto with = dir / "roofline.png", without = dir / "empty.png";
  auto r = runFuselab({"screenshot", "--trace", trace.string(), "--area", "roofline", "--out", with.string(), "--width",
                       "900", "--height", "560"},
                      dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_EQ(runFuselab({"screenshot", "--area", "roofline", "--out", without.string(), "--width", "900", "--height",
                        "560"},
                       dir)
                .exit_code,
            0);
  test::Image img = readPng(with), empty = readPng(without);
  ASSERT_EQ(img.width, 900);
  // Axes, ticks, the roof, translucent dots and their names against an empty frame.
  EXPECT_GT(distinctColours(img), distinctColours(empty) + 20);
  auto bad = runFuselab({"screenshot", "--area", "bars", "--out", (dir / "x.png").string()}, dir);
  EXPECT_NE(bad.exit_code, 0);
}

// A real training step recorded with profile_memory=True (tests/data/training-h200/).
TEST(ScreenshotCommand, FlameAndMemoryAreasDrawTheTrainingStep) {
  auto dir = test::scratchDir("ScreenshotCommand.FlameMemory");
  const std::string trace =
      (std::filesystem::path(build_paths::sourceDir()) / "tests/data/training-h200/training_step_memory.json.gz").string();
  const std::string plain = test::fixture("mlp_eager.json.gz").string();  // no memory events
  std::map<std::string, test::Image> images;
  for (const auto& [name, args] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"cpu", {"--trace", trace, "--area", "flame"}},
           {"gpu", {"--trace", trace, "--area", "flame", "--metric", "gpu"}},
           {"memory", {"--trace", trace, "--area", "memory"}},
           {"no_memory", {"--trace", plain, "--area", "memory"}}}) {
    std::vector<std::string> cmd = {"screenshot", "--out", (dir / (name + ".png")).string(), "--width", "900", "--height", "500"};
    cmd.insert(cmd.end(), args.begin(), args.end());
    auto r = runFuselab(cmd, dir);
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.output;
    images[name] = readPng(dir / (name + ".png"));
  }
  // Frames in their categories' colours, and a curve with its table, against
  // the one-line note of a trace without memory.
  EXPECT_GT(distinctColours(images["cpu"]), 30u);
  EXPECT_GT(distinctColours(images["gpu"]), 30u);
  EXPECT_GT(distinctColours(images["memory"]), distinctColours(images["no_memory"]) + 10);
}

TEST(ScreenshotCommand, CriticalPathIsDrawnOnlyWhenAsked) {
  auto dir = test::scratchDir("ScreenshotCommand.CriticalPath");
  const std::string trace = test::fixture("mlp_eager.json.gz").string();
  auto with = dir / "path.png", without = dir / "plain.png";
  const std::vector<std::string> common = {"screenshot", "--trace", trace, "--area", "timeline", "--range",
                                           "2.2ms:3.9ms", "--width", "900", "--height", "500"};
  std::vector<std::string> args = common;
  args.insert(args.end(), {"--out", with.string(), "--critical-path"});
  auto r = runFuselab(args, dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  args = common;
  args.insert(args.end(), {"--out", without.string()});
  ASSERT_EQ(runFuselab(args, dir).exit_code, 0);
  // The dark theme's critical-path orange outlines the events of step 3's path.
  auto pathPixels = [](const test::Image& img) {
    size_t n = 0;
    for (int y = 0; y < img.height; ++y)
      for (int x = 0; x < img.width; ++x) {
        const uint8_t* p = img.at(x, y);
        n += p[0] == 255 && p[1] == 170 && p[2] == 40;
      }
    return n;
  };
  const test::Image img = readPng(with), plain = readPng(without);
  ASSERT_EQ(img.width, 900);
  EXPECT_GT(pathPixels(img), 1000u);
  EXPECT_EQ(pathPixels(plain), 0u);
}

TEST(ScreenshotCommand, ScaleMultipliesThePixels) {
  auto dir = test::scratchDir("ScreenshotCommand.Scale");
  auto out = dir / "x2.png";
  auto r = runFuselab({"screenshot", "--out", out.string(), "--width", "640", "--height", "400", "--scale", "2"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  test::Image img = readPng(out);
  EXPECT_EQ(img.width, 1280);
  EXPECT_EQ(img.height, 800);
}

TEST(ScreenshotCommand, LightThemeIsLight) {
  auto dir = test::scratchDir("ScreenshotCommand.Light");
  auto dark = dir / "dark.png", light = dir / "light.png";
  ASSERT_EQ(runFuselab({"screenshot", "--out", dark.string(), "--width", "800", "--height", "500"}, dir).exit_code, 0);
  ASSERT_EQ(runFuselab({"screenshot", "--out", light.string(), "--width", "800", "--height", "500", "--theme", "light"},
                       dir)
                .exit_code,
            0);
  auto mean = [](const test::Image& img) {
    double sum = 0;
    for (size_t i = 0; i + 3 < img.rgba.size(); i += 4) sum += (img.rgba[i] + img.rgba[i + 1] + img.rgba[i + 2]) / 3.0;
    return sum / (img.rgba.size() / 4);
  };
  test::Image d = readPng(dark), l = readPng(light);
  ASSERT_GT(d.width, 0);
  ASSERT_GT(l.width, 0);
  EXPECT_LT(mean(d), 90);
  EXPECT_GT(mean(l), 170);
}

TEST(ScreenshotCommand, BadTraceFileFailsWithItsNameAndLeavesNoPng) {
  auto dir = test::scratchDir("ScreenshotCommand.BadTrace");
  auto bad = dir / "broken.json";
  std::ofstream(bad) << "{\"traceEvents\": [ {\"ph\": \"X\", \"ts\": ";
  auto out = dir / "x.png";
  auto r = runFuselab({"screenshot", "--out", out.string(), "--trace", bad.string()}, dir);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("broken.json"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(ScreenshotCommand, InvalidRangeIsRejected) {
  auto dir = test::scratchDir("ScreenshotCommand.Range");
  auto out = dir / "x.png";
  auto r = runFuselab({"screenshot", "--out", out.string(), "--trace", test::fixture("mlp_eager.json.gz").string(),
                       "--range", "5ms:1ms"},
                      dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("END must be after START"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

constexpr const char* kNoDisplay = "env -u DISPLAY -u WAYLAND_DISPLAY";

TEST(ScreenshotCommand, WithoutADisplayPicturesRenderThroughEglAndTheWindowSaysNoDisplay) {
  auto dir = test::scratchDir("ScreenshotCommand.NoDisplay");
  const std::string mlp = test::fixture("mlp_eager.json.gz").string();
  auto shot = dir / "x.png", compare = dir / "c.png", step = dir / "t.png";
  auto r = runFuselab({"screenshot", "--trace", mlp, "--out", shot.string(), "--width", "800", "--height", "500"}, dir,
                      kNoDisplay);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  test::Image img = readPng(shot);
  EXPECT_EQ(img.width, 800);
  EXPECT_GT(distinctColours(img), 20u);
  const std::string linear = test::fixture("linear_eager.json.gz").string();
  EXPECT_EQ(runFuselab({"compare", mlp, linear, "--screenshot", compare.string()}, dir, kNoDisplay).exit_code, 0);
  EXPECT_GT(distinctColours(readPng(compare)), 20u);
  EXPECT_EQ(runFuselab({"tutorial", "--step", "9", "--trace", mlp, "--screenshot", step.string()}, dir, kNoDisplay)
                .exit_code,
            0);
  EXPECT_GT(distinctColours(readPng(step)), 20u);

  // The window itself needs a display, and says how to get one.
  auto w = runFuselab({"open", mlp}, dir, kNoDisplay);
  EXPECT_EQ(w.exit_code, 2) << w.output;
  EXPECT_NE(w.output.find("no display"), std::string::npos) << w.output;
  EXPECT_NE(w.output.find("xvfb-run"), std::string::npos) << w.output;
}

TEST(ScreenshotCommand, EglAndAHiddenWindowRenderTheSamePicture) {
  auto dir = test::scratchDir("ScreenshotCommand.EglSameAsGlfw");
  const std::string mlp = test::fixture("mlp_eager.json.gz").string();
  auto glfw = dir / "glfw.png", egl = dir / "egl.png";
  const std::vector<std::string> size = {"--width", "900", "--height", "600", "--trace", mlp};
  auto args = [&](const std::filesystem::path& out) {
    std::vector<std::string> a = {"screenshot", "--out", out.string()};
    a.insert(a.end(), size.begin(), size.end());
    return a;
  };
  ASSERT_EQ(runFuselab(args(glfw), dir, "FUSELAB_OFFSCREEN=glfw").exit_code, 0);
  auto r = runFuselab(args(egl), dir, "FUSELAB_OFFSCREEN=egl");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  test::Image a = readPng(glfw), b = readPng(egl);
  ASSERT_EQ(a.width, b.width);
  ASSERT_EQ(a.height, b.height);
  size_t differing = 0;
  for (size_t i = 0; i < a.rgba.size(); i += 4)
    differing += std::memcmp(&a.rgba[i], &b.rgba[i], 3) != 0;
  // The same renderer (Mesa here) behind both: at most a few edge pixels differ.
  EXPECT_LT(differing, a.rgba.size() / 4 / 1000) << differing << " pixels differ";
}

TEST(ScreenshotCommand, AnOffscreenChoiceThatCannotWorkSaysWhy) {
  auto dir = test::scratchDir("ScreenshotCommand.OffscreenChoice");
  auto out = dir / "x.png";
  auto r = runFuselab({"screenshot", "--out", out.string()}, dir,
                      std::string(kNoDisplay) + " FUSELAB_OFFSCREEN=glfw");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no display"), std::string::npos) << r.output;
  r = runFuselab({"screenshot", "--out", out.string()}, dir, "FUSELAB_OFFSCREEN=vulkan");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("FUSELAB_OFFSCREEN must be egl or glfw, got 'vulkan'"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(Png, EncodedImageDecodesToTheSamePixels) {
  RgbaImage img;
  img.width = 7;
  img.height = 5;
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 7; ++x)
      img.pixels.insert(img.pixels.end(), {uint8_t(x * 30), uint8_t(y * 50), uint8_t(x * y), 255});
  auto dir = test::scratchDir("Png.RoundTrip");
  writePng(dir / "p.png", img);
  test::Image back = readPng(dir / "p.png");
  ASSERT_EQ(back.width, 7);
  ASSERT_EQ(back.height, 5);
  EXPECT_EQ(back.rgba, img.pixels);
  RgbaImage part = img.cropped(2, 1, 3, 10);
  EXPECT_EQ(part.width, 3);
  EXPECT_EQ(part.height, 4);
  EXPECT_EQ(part.pixels[0], 60);
  EXPECT_EQ(part.pixels[1], 50);
  EXPECT_THROW(encodePng(RgbaImage{}), std::runtime_error);
}

}  // namespace
}  // namespace fuselab
