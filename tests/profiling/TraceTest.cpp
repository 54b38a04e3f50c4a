#include "profiling/Trace.h"

#include <gtest/gtest.h>

namespace fuselab {
namespace {

Trace::NewEvent ev(Trace& t, int64_t start, int64_t dur, const char* name, Category c = Category::CpuOp) {
  Trace::NewEvent e;
  e.start_ns = start;
  e.dur_ns = dur;
  e.name_id = t.strings.intern(name);
  e.cat_id = t.strings.intern(categoryName(c));
  e.category = c;
  return e;
}

TEST(Trace, NestedEventsGetDepthsAndSortedOrder) {
  Trace t;
  uint32_t cpu = t.trackFor("1", "1");
  t.append(cpu, ev(t, 150, 10, "aten::t"));
  t.append(cpu, ev(t, 100, 100, "aten::linear"));
  t.append(cpu, ev(t, 170, 20, "aten::addmm"));
  t.append(cpu, ev(t, 300, 5, "aten::gelu"));
  t.finalize();
  const Track& tr = t.tracks[cpu];
  ASSERT_EQ(tr.size(), 4u);
  EXPECT_EQ(t.strings.get(tr.name_id[0]), "aten::linear");
  EXPECT_EQ(tr.depth[0], 0);
  EXPECT_EQ(tr.depth[1], 1);  // aten::t inside linear
  EXPECT_EQ(tr.depth[2], 1);  // addmm after t, still inside linear
  EXPECT_EQ(tr.depth[3], 0);
  EXPECT_EQ(tr.kind, TrackKind::Cpu);
}

TEST(Trace, PartialOverlapGoesToAnotherRowNotDropped) {
  Trace t;
  uint32_t tr = t.trackFor("0", "7");
  t.append(tr, ev(t, 0, 100, "k1", Category::Kernel));
  t.append(tr, ev(t, 50, 100, "k2", Category::Kernel));
  t.finalize();
  ASSERT_EQ(t.tracks[tr].size(), 2u);
  EXPECT_EQ(t.tracks[tr].depth[1], 1);
  EXPECT_EQ(t.tracks[tr].kind, TrackKind::Gpu);
}

TEST(Trace, LaunchLinksJoinCallAndGpuOpsByCorrelation) {
  Trace t;
  uint32_t cpu = t.trackFor("1", "1");
  uint32_t gpu = t.trackFor("0", "7");
  auto launch = ev(t, 10, 5, "cudaGraphLaunch", Category::CudaRuntime);
  launch.correlation = 42;
  t.append(cpu, launch);
  for (int i = 0; i < 3; ++i) {
    auto k = ev(t, 20 + i * 10, 5, "k", Category::Kernel);
    k.correlation = 42;
    t.append(gpu, k);
  }
  t.finalize();
  const LaunchLink* l = t.launchFor(42);
  ASSERT_NE(l, nullptr);
  ASSERT_TRUE(l->launch.has_value());
  EXPECT_EQ(l->launch->track, cpu);
  EXPECT_EQ(l->gpu_ops.size(), 3u);
  EXPECT_EQ(t.launchFor(7), nullptr);
}

}  // namespace
}  // namespace fuselab
