#include "app/cli/TimeRangeArg.h"

#include <gtest/gtest.h>

namespace fuselab {
namespace {

TEST(TimeRangeArg, UnitsAndDefaultMicroseconds) {
  EXPECT_DOUBLE_EQ(*parseTimeNs("250"), 250'000);
  EXPECT_DOUBLE_EQ(*parseTimeNs("250us"), 250'000);
  EXPECT_DOUBLE_EQ(*parseTimeNs("1.5ms"), 1'500'000);
  EXPECT_DOUBLE_EQ(*parseTimeNs("2 s"), 2e9);
  EXPECT_DOUBLE_EQ(*parseTimeNs("40ns"), 40);
  EXPECT_FALSE(parseTimeNs("3 min"));
  EXPECT_FALSE(parseTimeNs("ms"));
  EXPECT_FALSE(parseTimeNs(""));
}

TEST(TimeRangeArg, RangesParse) {
  auto r = parseTimeRange("1.2ms:2.5ms");
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->begin_ns, 1'200'000);
  EXPECT_DOUBLE_EQ(r->end_ns, 2'500'000);
  r = parseTimeRange("0:900");
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->end_ns, 900'000);
}

TEST(TimeRangeArg, BadRangesSayWhy) {
  std::string why;
  EXPECT_FALSE(parseTimeRange("5ms:1ms", &why));
  EXPECT_NE(why.find("END must be after START"), std::string::npos);
  EXPECT_FALSE(parseTimeRange("1ms", &why));
  EXPECT_NE(why.find("START:END"), std::string::npos);
  EXPECT_FALSE(parseTimeRange("-1:5", &why));
  EXPECT_NE(why.find("negative"), std::string::npos);
  EXPECT_FALSE(parseTimeRange("a:5", &why));
  EXPECT_NE(why.find("START is not a time"), std::string::npos);
  EXPECT_FALSE(parseTimeRange("1:2:3", &why));
}

}  // namespace
}  // namespace fuselab
