// The memory lane's columns: each pixel the largest value in effect during
// it, neighbours with equal values merged, nothing before the first point;
// and a million points fold to no more columns than pixels, each right.
#include <gtest/gtest.h>

#include "ui/layout/MemoryFolding.h"

namespace fuselab::ui {
namespace {

MemoryCurve curve(std::vector<int64_t> ts, std::vector<int64_t> allocated) {
  MemoryCurve c;
  c.ts_ns = std::move(ts);
  c.reserved.assign(allocated.size(), 1000);
  c.track.assign(allocated.size(), UINT32_MAX);
  c.allocated = std::move(allocated);
  return c;
}

TimeAxis axis(double begin, double end, float width) {
  TimeAxis a;
  a.width_px = width;
  a.fit(begin, end);
  return a;
}

TEST(MemoryFolding, ColumnsHoldTheLargestValueInEffect) {
  // 100 at 10 ns, a spike of 900 from 25 to 26 ns, 50 from 40 ns on.
  const MemoryCurve c = curve({10, 25, 26, 40}, {100, 900, 100, 50});
  const MemoryFolding fold(c);
  const auto cols = fold.fold(axis(0, 100, 10), 0, 10);  // 10 ns a pixel
  ASSERT_FALSE(cols.empty());
  EXPECT_FLOAT_EQ(cols.front().x0, 1);  // nothing before the first point
  auto at = [&](float x) {
    for (const MemoryColumn& k : cols)
      if (x >= k.x0 && x < k.x1) return k.allocated;
    return int64_t(-1);
  };
  EXPECT_EQ(at(1), 100);
  EXPECT_EQ(at(2), 900);  // the 1 ns spike is not lost
  EXPECT_EQ(at(3), 100);
  EXPECT_EQ(at(4), 50);
  EXPECT_EQ(at(9), 50);
  EXPECT_EQ(cols.back().x1, 10);
  EXPECT_EQ(fold.pointAt(5), -1);
  EXPECT_EQ(fold.pointAt(30), 2);
  EXPECT_EQ(fold.maxAllocated(), 900);
}

TEST(MemoryFolding, AMillionPointsFoldToAtMostOneColumnAPixel) {
  std::vector<int64_t> ts, allocated;
  for (int64_t i = 0; i < 1'000'000; ++i) {
    ts.push_back(i * 10);
    allocated.push_back((i * 7919) % 100'000);
  }
  const MemoryCurve c = curve(std::move(ts), std::move(allocated));
  const MemoryFolding fold(c);
  const auto cols = fold.fold(axis(0, 10'000'000, 800), 0, 800);
  EXPECT_LE(cols.size(), 800u);
  EXPECT_GE(cols.size(), 1u);
  // Each column against a scan of the points in effect during it.
  const TimeAxis a = axis(0, 10'000'000, 800);
  for (const MemoryColumn& k : cols) {
    const int64_t first = fold.pointAt(a.xToNs(k.x0));
    int64_t largest = 0;
    for (size_t i = size_t(std::max<int64_t>(first, 0)); i < c.size() && double(c.ts_ns[i]) < a.xToNs(k.x1); ++i)
      largest = std::max(largest, c.allocated[i]);
    EXPECT_EQ(k.allocated, largest) << "column at " << k.x0;
  }
}

}  // namespace
}  // namespace fuselab::ui
