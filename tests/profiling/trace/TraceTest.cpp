#include "profiling/trace/Trace.h"

#include <gtest/gtest.h>

#include <memory>

#include "tests/support/AddEvent.h"

namespace fuselab {
namespace {

using test::newEvent;

TEST(Trace, NestedEventsGetDepthsAndSortedOrder) {
  Trace t;
  uint32_t cpu = t.trackFor("1", "1");
  t.append(cpu, newEvent(t, "aten::t", 150, 10));
  t.append(cpu, newEvent(t, "aten::linear", 100, 100));
  t.append(cpu, newEvent(t, "aten::addmm", 170, 20));
  t.append(cpu, newEvent(t, "aten::gelu", 300, 5));
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
  t.append(tr, newEvent(t, "k1", 0, 100, Category::Kernel));
  t.append(tr, newEvent(t, "k2", 50, 100, Category::Kernel));
  t.finalize();
  ASSERT_EQ(t.tracks[tr].size(), 2u);
  EXPECT_EQ(t.tracks[tr].depth[1], 1);
  EXPECT_EQ(t.tracks[tr].kind, TrackKind::Gpu);
}

TEST(Trace, LaunchLinksJoinCallAndGpuOpsByCorrelation) {
  Trace t;
  uint32_t cpu = t.trackFor("1", "1");
  uint32_t gpu = t.trackFor("0", "7");
  auto launch = newEvent(t, "cudaGraphLaunch", 10, 5, Category::CudaRuntime);
  launch.correlation = 42;
  t.append(cpu, launch);
  for (int i = 0; i < 3; ++i) {
    auto k = newEvent(t, "k", 20 + i * 10, 5, Category::Kernel);
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

// A copied table looks names up in its own strings: the original may be gone
// (a vector of traces that grows copies them when their move may throw).
TEST(StringTable, ACopyFindsItsOwnStrings) {
  auto original = std::make_unique<StringTable>();
  const uint32_t id = original->intern("aten::mm");
  const StringTable copy = *original;
  StringTable assigned;
  assigned = *original;
  original.reset();
  EXPECT_EQ(copy.find("aten::mm"), id);
  EXPECT_EQ(assigned.find("aten::mm"), id);
  StringTable grown = copy;
  EXPECT_EQ(grown.intern("aten::mm"), id);  // found, not added again
  EXPECT_EQ(grown.size(), copy.size());
}

}  // namespace
}  // namespace fuselab
