// The worker pool behind parallelFor: every item once, loops inside loops,
// and an item's exception reaching the caller.
#include "profiling/trace/ParallelFor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

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

}  // namespace
}  // namespace fuselab
