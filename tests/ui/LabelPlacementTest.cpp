// Plot labels (ui/layout/LabelPlacement.h): none covers another label or a
// point it does not name, on a made-up cluster and on the roofline of a real
// training step, where four GEMM names once sat on top of each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/TestPaths.h"
#include "ui/layout/EventNames.h"
#include "ui/layout/LabelPlacement.h"
#include "ui/layout/RooflinePlot.h"

namespace fuselab::ui {
namespace {

// Every placed label inside the bounds, off every other placed label and off
// every disc but its own; returns how many were placed.
size_t expectNoOverlap(const std::vector<LabelRequest>& requests, const std::vector<LabelDisc>& discs,
                       const LabelRect& bounds, const std::vector<PlacedLabel>& placed) {
  EXPECT_EQ(placed.size(), requests.size());
  size_t count = 0;
  for (size_t i = 0; i < placed.size(); ++i) {
    if (!placed[i].placed) continue;
    ++count;
    const LabelRect& r = placed[i].rect;
    EXPECT_TRUE(r.inside(bounds)) << "label " << i;
    EXPECT_FLOAT_EQ(r.x1 - r.x0, requests[i].width);
    for (size_t j = 0; j < placed.size(); ++j)
      if (j != i && placed[j].placed) EXPECT_FALSE(r.intersects(placed[j].rect)) << "labels " << i << " and " << j;
    for (const LabelDisc& d : discs) {
      if (d.x == requests[i].point.x && d.y == requests[i].point.y) continue;
      EXPECT_FALSE(d.intersects(r)) << "label " << i << " covers the point at " << d.x << "," << d.y;
    }
  }
  return count;
}

TEST(LabelPlacement, ACrowdedClusterGetsNoOverlappingLabels) {
  // 20 points within 60 px of each other, each with a 120 x 14 px label.
  std::vector<LabelDisc> discs;
  std::vector<LabelRequest> requests;
  for (int i = 0; i < 20; ++i) {
    const LabelDisc d{400.0f + float((i * 37) % 60), 300.0f + float((i * 23) % 60), 3.0f + float(i % 4)};
    discs.push_back(d);
    requests.push_back({d, 120, 14});
  }
  const LabelRect bounds{0, 0, 900, 600};
  const auto placed = placeLabels(requests, discs, bounds);
  const size_t count = expectNoOverlap(requests, discs, bounds, placed);
  EXPECT_TRUE(placed[0].placed && placed[1].placed) << "the most important labels find a place";
  EXPECT_GE(count, 8u);
  EXPECT_TRUE(std::any_of(placed.begin(), placed.end(), [](const PlacedLabel& p) { return p.placed && p.leader; }))
      << "a crowd needs leader lines";
}

TEST(LabelPlacement, ALabelBesideItsPointNeedsNoLeader) {
  const LabelDisc d{100, 100, 5};
  const auto placed = placeLabels({{d, 50, 12}}, {d}, {0, 0, 400, 300});
  ASSERT_TRUE(placed[0].placed);
  EXPECT_FALSE(placed[0].leader);
  EXPECT_FLOAT_EQ(placed[0].rect.x0, 108);  // right of the disc, 3 px past it
}

TEST(LabelPlacement, ReservedTextAndTheBoundsAreKeptFree) {
  const LabelDisc d{10, 10, 4};
  const LabelRect bounds{0, 0, 200, 100};
  const LabelRect title{0, 0, 200, 8};  // a title along the top
  const auto placed = placeLabels({{d, 60, 12}}, {d}, bounds, {title});
  ASSERT_TRUE(placed[0].placed);
  EXPECT_FALSE(placed[0].rect.intersects(title));
  EXPECT_TRUE(placed[0].rect.inside(bounds));
  // No room anywhere: left out, for the caller to list.
  EXPECT_FALSE(placeLabels({{d, 300, 12}}, {d}, bounds)[0].placed);
}

// The roofline of tests/data/training-h200/training_step.json.gz as the
// Roofline tab lays it out at 1200 x 700 px, its eight largest kernels
// labelled, names about 7 px a character.
TEST(LabelPlacement, TheTrainingStepRooflineHasNoOverlappingLabels) {
  const Trace trace = importChromeTrace(test::dataDir("training-h200") / "training_step.json.gz");
  const TraceAnalysis a = analyzeTrace(trace);
  std::vector<RooflineDot> dots;
  std::vector<std::string> names;
  double max_ns = 0;
  for (const KernelRow& k : a.kernels) {
    const RooflineDot d{k.roofline.intensity, k.roofline.achieved_tflops, double(k.roofline.dur_ns)};
    if (k.roofline.known == 0 || !drawable(d)) continue;
    dots.push_back(d);
    names.push_back(shortEventName(k.name).substr(0, 40));
    max_ns = std::max(max_ns, d.total_ns);
  }
  ASSERT_GE(dots.size(), 8u);
  const double peak = a.roofline.ceilings ? a.roofline.ceilings->peakTflops(Precision::BF16) : 0;
  const double bw = a.roofline.ceilings ? a.roofline.ceilings->copy_gbps : 0;
  const LabelRect bounds{60, 8, 1188, 660};
  const RooflinePlot plot = RooflinePlot::fit(dots, peak, bw, bounds.x0, bounds.y0, bounds.x1, bounds.y1);
  std::vector<LabelDisc> discs;
  for (const RooflineDot& d : dots) {
    const PlotPoint c = plot.at(d.intensity, d.tflops);
    discs.push_back({c.x, c.y, dotRadius(d.total_ns, max_ns, 3, 22)});
  }
  std::vector<LabelRequest> requests;
  for (size_t i = 0; i < 8; ++i) requests.push_back({discs[i], 7.0f * float(names[i].size()), 13});
  const auto placed = placeLabels(requests, discs, bounds, {{60, 8, 230, 24}});
  EXPECT_GE(expectNoOverlap(requests, discs, bounds, placed), 4u);
}

}  // namespace
}  // namespace fuselab::ui
