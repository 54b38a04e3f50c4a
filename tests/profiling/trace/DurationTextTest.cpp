// The words for changes in reports and the window.
#include "profiling/trace/DurationText.h"

#include <gtest/gtest.h>

namespace fuselab {
namespace {

TEST(DurationText, SignedPercentRoundsAndSaysTheDirection) {
  EXPECT_EQ(formatSignedPercent(-0.314), "-31%");
  EXPECT_EQ(formatSignedPercent(0.05), "+5%");
  EXPECT_EQ(formatSignedPercent(0.0), "0%");
  EXPECT_EQ(formatSignedPercent(-0.004), "0%");
}

}  // namespace
}  // namespace fuselab
