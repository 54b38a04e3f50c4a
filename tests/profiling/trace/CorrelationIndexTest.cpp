#include "profiling/trace/CorrelationIndex.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace fuselab {
namespace {

// Sparse ids (hashed, then frozen), four times as many distinct ones as
// announced: more than the table first has slots for, so it must grow and
// keep what it held.
TEST(CorrelationIndex, MoreIdsThanAnnouncedAreAllFound) {
  constexpr uint32_t kIds = 20000;
  auto idOf = [](uint32_t k) { return int64_t(k) * 1000 + 7; };
  CorrelationIndex index;
  index.reset(idOf(0), idOf(kIds - 1), kIds / 4);
  for (uint32_t k = 0; k < kIds; ++k) ASSERT_EQ(index.findOrAdd(idOf(k), k), k);
  for (uint32_t k = 0; k < kIds; ++k) ASSERT_EQ(index.findOrAdd(idOf(k), k + 1), k);  // the first value stays
  EXPECT_EQ(index.find(idOf(0) + 1), CorrelationIndex::kNone);
  index.freeze();
  for (uint32_t k = 0; k < kIds; ++k) ASSERT_EQ(index.find(idOf(k)), k);
  EXPECT_EQ(index.find(idOf(kIds / 2) + 1), CorrelationIndex::kNone);
  EXPECT_EQ(index.find(idOf(kIds)), CorrelationIndex::kNone);
}

}  // namespace
}  // namespace fuselab
