// The worker pool behind parallelFor: every item once, loops inside loops,
// and an item's exception reaching the caller; parallelSort on it.
#include "profiling/trace/ParallelFor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "profiling/trace/ParallelSort.h"

namespace fuselab {
namespace {

TEST(ParallelFor, RunsEveryItemOnce) {
  for (size_t n : {0u, 1u, 2u, 7u, 1000u}) {
    std::vector<std::atomic<int>> runs(n);
    parallelFor(n, [&](size_t i) { runs[i].fetch_add(1); });
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(runs[i].load(), 1) << "item " << i << " of " << n;
  }
}

TEST(ParallelFor, LoopsInsideLoopsFinish) {
  // More outer items than cores, each running a loop of its own: every
  // worker may be inside an item while the inner loops still need running.
  std::atomic<size_t> total{0};
  parallelFor(64, [&](size_t) { parallelFor(50, [&](size_t j) { total.fetch_add(j); }); });
  EXPECT_EQ(total.load(), 64u * (49u * 50u / 2));
}

TEST(ParallelFor, AnItemsExceptionReachesTheCallerAfterTheOthersRan) {
  std::atomic<int> ran{0};
  EXPECT_THROW(parallelFor(100,
                           [&](size_t i) {
                             ran.fetch_add(1);
                             if (i == 37) throw std::runtime_error("item 37");
                           }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 100);
  // The pool is still usable.
  std::atomic<int> after{0};
  parallelFor(10, [&](size_t) { after.fetch_add(1); });
  EXPECT_EQ(after.load(), 10);
}

// Sizes around the chunk size and the chunk counts' steps, with many equal
// keys broken by index: the same order as std::sort.
TEST(ParallelSort, GivesStdSortsOrder) {
  std::mt19937 rng(3);
  for (size_t n : {size_t(0), size_t(1), size_t(65535), size_t(131072), size_t(131073), size_t(700001)}) {
    std::vector<std::pair<int, uint32_t>> v(n);
    for (uint32_t i = 0; i < n; ++i) v[i] = {int(rng() % 1000), i};
    std::vector<std::pair<int, uint32_t>> expected = v;
    auto less = [](const auto& a, const auto& b) { return a.first != b.first ? a.first < b.first : a.second < b.second; };
    std::sort(expected.begin(), expected.end(), less);
    parallelSort(v, less);
    ASSERT_EQ(v, expected) << n << " elements";
  }
}

}  // namespace
}  // namespace fuselab
