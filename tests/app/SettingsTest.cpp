#include "app/Settings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

TEST(Settings, RoundTripThroughTheFile) {
  auto dir = test::scratchDir("Settings.RoundTrip");
  Settings s;
  s.theme = "light";
  s.ui_scale = 1.5f;
  s.gap_threshold_ns = 12'000;
  s.window_width = 1200;
  s.window_height = 800;
  s.sidebar_width = 420;
  s.timeline_fraction = 0.5f;
  s.addRecentFile((dir / "a.json").string());
  auto file = dir / "sub" / "settings.json";  // the folder is created
  saveSettings(s, file);
  std::string warning;
  Settings back = loadSettings(file, &warning);
  EXPECT_TRUE(warning.empty()) << warning;
  EXPECT_EQ(back.theme, "light");
  EXPECT_FLOAT_EQ(back.ui_scale, 1.5f);
  EXPECT_EQ(back.gap_threshold_ns, 12'000);
  EXPECT_EQ(back.window_width, 1200);
  EXPECT_EQ(back.window_height, 800);
  EXPECT_FLOAT_EQ(back.sidebar_width, 420);
  EXPECT_FLOAT_EQ(back.timeline_fraction, 0.5f);
  EXPECT_EQ(back.recent_files, s.recent_files);
}

TEST(Settings, MeasuredCeilingsRoundTripOnePerGpu) {
  auto dir = test::scratchDir("Settings.Ceilings");
  Settings s;
  Ceilings a;
  a.gpu = "GPU A";
  a.bf16_tflops = 700;
  a.copy_gbps = 2900;
  Ceilings b = a;
  b.gpu = "GPU B";
  s.setMeasuredCeilings(a);
  s.setMeasuredCeilings(b);
  a.bf16_tflops = 710;  // measured again: replaces the first
  s.setMeasuredCeilings(a);
  saveSettings(s, dir / "settings.json");
  Settings back = loadSettings(dir / "settings.json");
  ASSERT_EQ(back.measured_ceilings.size(), 2u);
  auto find = [&](const std::string& gpu) {
    return *std::find_if(back.measured_ceilings.begin(), back.measured_ceilings.end(),
                         [&](const Ceilings& c) { return c.gpu == gpu; });
  };
  EXPECT_DOUBLE_EQ(find("GPU A").bf16_tflops, 710);
  EXPECT_DOUBLE_EQ(find("GPU B").copy_gbps, 2900);
  EXPECT_EQ(find("GPU A").source, "measured");
}

TEST(Settings, BadCeilingEntriesAreDropped) {
  auto dir = test::scratchDir("Settings.BadCeilings");
  std::ofstream(dir / "settings.json") << R"({"measured_ceilings": [{"gpu": "", "bf16_tflops": 1},
      {"gpu": "X", "bf16_tflops": "fast"}, {"gpu": "Y", "copy_gbps": -3}, {"gpu": "Z", "copy_gbps": 100}, 7,
      {"gpu": "W", "values": {"bf16_tflops": 790, "copy_gbps": 3010}}]})";
  Settings s = loadSettings(dir / "settings.json");
  ASSERT_EQ(s.measured_ceilings.size(), 1u);
  EXPECT_EQ(s.measured_ceilings[0].gpu, "Z");
}

TEST(Settings, MissingFileGivesDefaultsQuietly) {
  auto dir = test::scratchDir("Settings.Missing");
  std::string warning;
  Settings s = loadSettings(dir / "nope.json", &warning);
  EXPECT_TRUE(warning.empty());
  EXPECT_EQ(s.theme, "dark");
  EXPECT_EQ(s.gap_threshold_ns, 30'000);
}

TEST(Settings, MalformedFileGivesDefaultsAndAWarning) {
  auto dir = test::scratchDir("Settings.Malformed");
  std::ofstream(dir / "settings.json") << "{ \"theme\": \"light\", ";
  std::string warning;
  Settings s = loadSettings(dir / "settings.json", &warning);
  EXPECT_EQ(s.theme, "dark");
  EXPECT_NE(warning.find("settings.json"), std::string::npos) << warning;
}

TEST(Settings, BadValuesAreIgnoredOrClampedOneByOne) {
  auto dir = test::scratchDir("Settings.BadValues");
  std::ofstream(dir / "settings.json")
      << R"({"theme": "purple", "ui_scale": "big", "gap_threshold_ns": -5, "window_width": 99999,
            "recent_files": ["/x/a.json"], "timeline_fraction": 0.3})";
  std::string warning;
  Settings s = loadSettings(dir / "settings.json", &warning);
  EXPECT_EQ(s.theme, "dark");
  EXPECT_FLOAT_EQ(s.ui_scale, 1.0f);
  EXPECT_NE(warning.find("ui_scale"), std::string::npos) << warning;
  EXPECT_EQ(s.gap_threshold_ns, 0);
  EXPECT_EQ(s.window_width, 16384);
  EXPECT_FLOAT_EQ(s.timeline_fraction, 0.3f);
  ASSERT_EQ(s.recent_files.size(), 1u);
}

TEST(Settings, RecentFilesAreUniqueNewestFirstAndCapped) {
  Settings s;
  for (int i = 0; i < 15; ++i) s.addRecentFile("/t/" + std::to_string(i) + ".json");
  s.addRecentFile("/t/12.json");
  ASSERT_EQ(s.recent_files.size(), Settings::kMaxRecentFiles);
  EXPECT_EQ(s.recent_files[0], "/t/12.json");
  EXPECT_EQ(s.recent_files[1], "/t/14.json");
  EXPECT_EQ(std::count(s.recent_files.begin(), s.recent_files.end(), "/t/12.json"), 1);
}

TEST(Settings, FolderFollowsXdgConfigHome) {
  const char* old = std::getenv("XDG_CONFIG_HOME");
  std::string saved = old ? old : "";
  setenv("XDG_CONFIG_HOME", "/tmp/xdg-test", 1);
  EXPECT_EQ(settingsDir(), std::filesystem::path("/tmp/xdg-test/fuselab"));
  unsetenv("XDG_CONFIG_HOME");
  if (const char* home = std::getenv("HOME"))
    EXPECT_EQ(settingsDir(), std::filesystem::path(home) / ".config" / "fuselab");
  if (old) setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
}

}  // namespace
}  // namespace fuselab
