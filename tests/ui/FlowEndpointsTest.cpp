#include "ui/layout/FlowEndpoints.h"

#include <gtest/gtest.h>

#include "tests/ui/UiTestTraces.h"

namespace fuselab::ui {
namespace {

using test::addEvent;

struct Fixture {
  Trace t;
  uint32_t cpu = 0, gpu = 0;
  Fixture() {
    cpu = t.trackFor("1", "1");
    gpu = t.trackFor("0", "7");
    addEvent(t, cpu, "aten::linear", 0, 1000, Category::CpuOp);
    addEvent(t, cpu, "aten::addmm", 100, 800, Category::CpuOp);
    addEvent(t, cpu, "cudaLaunchKernel", 200, 50, Category::CudaRuntime, 11);
    addEvent(t, cpu, "cudaGraphLaunch", 400, 50, Category::CudaRuntime, 12);
    addEvent(t, cpu, "aten::gelu", 2000, 100, Category::CpuOp);
    addEvent(t, gpu, "gemm", 300, 100, Category::Kernel, 11);
    for (int i = 0; i < 3; ++i) addEvent(t, gpu, "graph_node", 600 + i * 100, 50, Category::Kernel, 12);
    t.finalize();
  }
  EventRef find(std::string_view name) const {
    for (uint32_t ti = 0; ti < t.tracks.size(); ++ti)
      for (uint32_t i = 0; i < t.tracks[ti].size(); ++i)
        if (t.name({ti, i}) == name) return {ti, i};
    ADD_FAILURE() << name;
    return {};
  }
};

TEST(FlowEndpoints, LaunchPointsToItsKernel) {
  Fixture f;
  auto links = flowsForEvent(f.t, f.find("cudaLaunchKernel"));
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0].from, f.find("cudaLaunchKernel"));
  EXPECT_EQ(f.t.name(links[0].to), "gemm");
}

TEST(FlowEndpoints, GraphLaunchPointsToEveryNode) {
  Fixture f;
  auto links = flowsForEvent(f.t, f.find("cudaGraphLaunch"));
  ASSERT_EQ(links.size(), 3u);
  for (const auto& l : links) EXPECT_EQ(f.t.name(l.to), "graph_node");
}

TEST(FlowEndpoints, KernelPointsBackToItsLaunch) {
  Fixture f;
  auto links = flowsForEvent(f.t, f.find("gemm"));
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(f.t.name(links[0].from), "cudaLaunchKernel");
  EXPECT_EQ(links[0].to, f.find("gemm"));
}

TEST(FlowEndpoints, CpuOpShowsTheLaunchesInsideIt) {
  Fixture f;
  EXPECT_EQ(flowsForEvent(f.t, f.find("aten::linear")).size(), 4u);
  EXPECT_EQ(flowsForEvent(f.t, f.find("aten::gelu")).size(), 0u);
  EXPECT_EQ(flowsForEvent(f.t, f.find("aten::linear"), 2).size(), 2u);  // capped
}

TEST(FlowEndpoints, ArrowsRunFromLaunchStartToKernelStart) {
  Fixture f;
  LaneLayout layout = layoutLanes(f.t);
  TimeAxis axis;
  axis.origin_px = 10;
  axis.width_px = 1000;
  axis.fit(0, 1000);
  auto arrows = flowArrows(f.t, flowsForEvent(f.t, f.find("cudaLaunchKernel")), layout, axis);
  ASSERT_EQ(arrows.size(), 1u);
  const Lane* cpu = layout.laneOfTrack(f.cpu);
  const Lane* gpu = layout.laneOfTrack(f.gpu);
  EXPECT_FLOAT_EQ(arrows[0].x0, 210);
  EXPECT_FLOAT_EQ(arrows[0].y0, layout.rowCenter(*cpu, 2));
  EXPECT_FLOAT_EQ(arrows[0].x1, 310);
  EXPECT_FLOAT_EQ(arrows[0].y1, layout.rowCenter(*gpu, 0));
  EXPECT_LT(arrows[0].y0, arrows[0].y1);  // CPU lanes are above GPU lanes
}

}  // namespace
}  // namespace fuselab::ui
