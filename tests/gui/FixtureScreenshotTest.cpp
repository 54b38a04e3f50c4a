// Each real torch.profiler fixture, rendered by `fuselab screenshot --area
// timeline`: the CPU lane group is drawn above the GPU lane group with the
// category colours, and GPU idle gaps are shaded where the fixture has them.
// What the fixture contains is read from its JSON here (nlohmann), not from
// fuselab's importer.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <map>

#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestPaths.h"
#include "ui/Theme.h"

namespace fuselab {
namespace {

using nlohmann::json;

std::string gunzip(const std::filesystem::path& p) {
  gzFile f = gzopen(p.c_str(), "rb");
  if (!f) return {};
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return out;
}

struct FixtureFacts {
  size_t cpu_events = 0;
  size_t gpu_ops = 0;
  double span_us = 0;
  double largest_gap_in_steps_us = 0;  // between consecutive GPU ops of one stream, both inside a step (if any)
};

FixtureFacts factsOf(const std::filesystem::path& p) {
  json doc = json::parse(gunzip(p));
  FixtureFacts f;
  double lo = 1e300, hi = -1e300;
  std::vector<std::pair<double, double>> steps;
  std::map<std::string, std::vector<std::pair<double, double>>> ops;  // stream -> (ts, end)
  for (const json& e : doc["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    std::string cat = e.value("cat", "");
    double ts = e["ts"].get<double>(), dur = e.value("dur", 0.0);
    lo = std::min(lo, ts);
    hi = std::max(hi, ts + dur);
    if (cat == "cpu_op" || cat == "user_annotation" || cat == "cuda_runtime" || cat == "cuda_driver") ++f.cpu_events;
    if (cat == "user_annotation" && e.value("name", "").rfind("ProfilerStep#", 0) == 0) steps.push_back({ts, ts + dur});
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
      ++f.gpu_ops;
      ops[e["pid"].dump() + "/" + e["tid"].dump()].push_back({ts, ts + dur});
    }
  }
  f.span_us = hi - lo;
  // Without ProfilerStep#k the analysis looks at the whole trace.
  auto in_step = [&](double t) {
    if (steps.empty()) return true;
    for (auto [a, b] : steps)
      if (t >= a && t <= b) return true;
    return false;
  };
  for (auto& [stream, v] : ops) {
    std::sort(v.begin(), v.end());
    for (size_t i = 1; i < v.size(); ++i)
      if (in_step(v[i - 1].first) && in_step(v[i].first))
        f.largest_gap_in_steps_us = std::max(f.largest_gap_in_steps_us, v[i].first - v[i - 1].second);
  }
  return f;
}

struct Band {
  int top = 0, bottom = 0;  // rows [top, bottom)
};

// Group header rows: rows mostly filled with the header colour.
std::vector<Band> headerBands(const test::Image& img, test::Rgb header) {
  std::vector<Band> bands;
  for (int y = 0; y < img.height; ++y) {
    int hits = 0;
    for (int x = 0; x < img.width; ++x) hits += test::near(img.at(x, y), header, 2);
    bool is_header = hits > img.width * 0.8;
    if (is_header && (bands.empty() || bands.back().bottom != y)) bands.push_back({y, y + 1});
    else if (is_header) bands.back().bottom = y + 1;
  }
  return bands;
}

template <typename Pred>
size_t countIn(const test::Image& img, int y0, int y1, Pred pred) {
  size_t n = 0;
  for (int y = std::max(0, y0); y < std::min(img.height, y1); ++y)
    for (int x = 0; x < img.width; ++x) n += pred(img.at(x, y));
  return n;
}

struct Case {
  const char* fixture;
  const char* theme;
};

class FixtureScreenshot : public ::testing::TestWithParam<Case> {};

TEST_P(FixtureScreenshot, CpuAboveGpuWithCategoryColoursAndGaps) {
  const Case c = GetParam();
  const auto path = test::fixture(c.fixture);
  const FixtureFacts facts = factsOf(path);
  ASSERT_GT(facts.cpu_events, 0u);
  ASSERT_GT(facts.gpu_ops, 0u);

  auto dir = test::scratchDir(std::string("FixtureScreenshot.") + c.theme + "." + c.fixture);
  auto out = dir / "timeline.png";
  const int width = 1400, height = 800;
  auto r = test::runFuselab({"screenshot", "--trace", path.string(), "--out", out.string(), "--area", "timeline",
                             "--width", std::to_string(width), "--height", std::to_string(height), "--theme", c.theme},
                            dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string why;
  test::Image img = test::readPng(out, &why);
  ASSERT_EQ(img.width, width) << why;
  ASSERT_EQ(img.height, height);

  const ui::Theme th = ui::makeTheme(*ui::parseThemeKind(c.theme));
  std::vector<Band> bands = headerBands(img, test::rgbOf(th.header_bg));
  ASSERT_GE(bands.size(), 2u) << "expected CPU and GPU group headers";
  const int cpu_top = bands[0].bottom, cpu_bottom = bands[1].top;
  const int gpu_top = bands[1].bottom, gpu_bottom = bands.size() > 2 ? bands[2].top : img.height;
  ASSERT_LT(cpu_top, cpu_bottom);
  ASSERT_LT(gpu_top, gpu_bottom);

  auto cpu_colour = [&](const uint8_t* px) {
    return test::shadeOf(px, test::rgbOf(th.cpu_op)) || test::shadeOf(px, test::rgbOf(th.user_annotation)) ||
           test::shadeOf(px, test::rgbOf(th.launch));
  };
  auto gpu_colour = [&](const uint8_t* px) {
    return test::shadeOf(px, test::rgbOf(th.kernel)) || test::shadeOf(px, test::rgbOf(th.memcpy)) ||
           test::shadeOf(px, test::rgbOf(th.memset));
  };
  size_t cpu_in_cpu = countIn(img, cpu_top, cpu_bottom, cpu_colour);
  size_t gpu_in_gpu = countIn(img, gpu_top, gpu_bottom, gpu_colour);
  size_t gpu_in_cpu = countIn(img, cpu_top, cpu_bottom, gpu_colour);
  EXPECT_GT(cpu_in_cpu, 500u) << "CPU lanes drawn";
  // Each GPU op is at least a pixel wide and most of a row high.
  EXPECT_GE(gpu_in_gpu, 8 * facts.gpu_ops) << "GPU lanes drawn";
  EXPECT_LT(gpu_in_cpu, 20u) << "GPU colours belong below the GPU header";

  // Gap shading: translucent gap colours over the lane background.
  std::vector<test::Rgb> gap_colours;
  for (ImU32 g : th.gap)
    for (ImU32 bg : th.lane_bg) gap_colours.push_back(test::blend(g, bg));
  size_t gap_pixels = countIn(img, gpu_top, gpu_bottom, [&](const uint8_t* px) {
    for (auto gc : gap_colours)
      if (test::near(px, gc, 3)) return true;
    return false;
  });
  // At fit-all about span/1200 us per pixel: gaps of several pixels are shaded exactly.
  const double us_per_px = facts.span_us / 1200.0;
  if (facts.largest_gap_in_steps_us > 6 * us_per_px)
    EXPECT_GT(gap_pixels, 50u) << "largest gap " << facts.largest_gap_in_steps_us << " us";
  std::cout << c.fixture << ": cpu px " << cpu_in_cpu << ", gpu px " << gpu_in_gpu << ", gap px " << gap_pixels
            << ", largest gap " << facts.largest_gap_in_steps_us << " us\n";
}

// --select draws the flow arrows of the selected op (launch -> kernel),
// in the flow colour, across the lanes; without it there are none.
TEST(FixtureScreenshotSelect, SelectedOpShowsItsFlowArrows) {
  const auto path = test::fixture("mlp_eager.json.gz");
  auto dir = test::scratchDir("FixtureScreenshotSelect");
  const ui::Theme th = ui::makeTheme(ui::ThemeKind::Dark);
  auto flow_pixels = [&](const std::vector<std::string>& extra) -> size_t {
    auto out = dir / "shot.png";
    std::vector<std::string> args = {"screenshot", "--trace", path.string(), "--out", out.string(), "--area",
                                     "timeline", "--width", "1400", "--height", "700"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = test::runFuselab(args, dir);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    test::Image img = test::readPng(out);
    if (img.width == 0) return 0;
    std::vector<Band> bands = headerBands(img, test::rgbOf(th.header_bg));
    if (bands.empty()) return 0;
    return countIn(img, bands[0].bottom, img.height,
                   [&](const uint8_t* px) { return test::near(px, test::rgbOf(th.flow), 40); });
  };
  EXPECT_EQ(flow_pixels({}), 0u);
  EXPECT_GT(flow_pixels({"--select", "aten::linear"}), 30u);

  auto r = test::runFuselab({"screenshot", "--trace", path.string(), "--out", (dir / "none.png").string(), "--select",
                             "aten::no_such_op"},
                            dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("no event named 'aten::no_such_op'"), std::string::npos) << r.output;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureScreenshot,
                         ::testing::Values(Case{"linear_eager.json.gz", "dark"}, Case{"mlp_eager.json.gz", "dark"},
                                           Case{"multistream_memcpy.json.gz", "dark"},
                                           Case{"mlp_eager.json.gz", "light"}),
                         [](const auto& info) {
                           std::string n = std::string(info.param.fixture) + "_" + info.param.theme;
                           for (char& ch : n)
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace fuselab
