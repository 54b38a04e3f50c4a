#include "profiling/trace/CorrelationIndex.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

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

// A merged run's ids: dense within each rank's part, far apart across parts.
TEST(CorrelationIndex, IdsDenseWithinPartsAreFoundPartByPart) {
  auto idOf = [](int64_t part, uint32_t k) { return (part << CorrelationIndex::kPartBits) + 100 + k; };
  std::vector<CorrelationIndex::IdSpan> parts(4);  // part 0 and 2 hold none
  for (int64_t part : {1, 3})
    for (uint32_t k = 0; k < 1000; ++k) parts[part].add(idOf(part, k));
  CorrelationIndex index;
  index.reset(parts);
  for (int64_t part : {1, 3})
    for (uint32_t k = 0; k < 1000; ++k) ASSERT_EQ(index.findOrAdd(idOf(part, k), uint32_t(part * 1000 + k)), part * 1000 + k);
  index.freeze();
  for (int64_t part : {1, 3})
    for (uint32_t k = 0; k < 1000; ++k) ASSERT_EQ(index.find(idOf(part, k)), part * 1000 + k);
  EXPECT_EQ(index.find(idOf(1, 1000)), CorrelationIndex::kNone);
  EXPECT_EQ(index.find(idOf(2, 5)), CorrelationIndex::kNone);
  EXPECT_EQ(index.find(idOf(4, 5)), CorrelationIndex::kNone);
  EXPECT_EQ(index.find(-1), CorrelationIndex::kNone);
}

}  // namespace
}  // namespace fuselab
