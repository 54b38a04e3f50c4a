// Measured hardware counters as kernel args: written into an args object,
// read back, and kept through Kineto JSON export and import.
#include "profiling/trace/MeasuredCounters.h"

#include <gtest/gtest.h>

#include <cmath>

#include "profiling/trace/ChromeTraceExport.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/TraceArgs.h"
#include "tests/support/SyntheticTrace.h"

namespace fuselab {
namespace {

MeasuredCounters both(double bytes, double pct) {
  MeasuredCounters c;
  c.dram_bytes = bytes;
  c.tensor_active_pct = pct;
  return c;
}

TEST(MeasuredCounters, AddedToAnArgsObjectKeepingItsFields) {
  const std::string args = withMeasuredCounters(R"({"correlation": 7, "grid": [1, 2, 3]})", both(67108864, 41.5));
  EXPECT_EQ(argInt(args, "correlation"), 7);
  EXPECT_EQ(argIntArray(args, "grid"), (std::vector<int64_t>{1, 2, 3}));
  const MeasuredCounters back = measuredCountersOf(args);
  EXPECT_EQ(back.dram_bytes, 67108864.0);
  EXPECT_EQ(back.tensor_active_pct, 41.5);
}

TEST(MeasuredCounters, EmptyArgsBecomeAnObject) {
  const std::string args = withMeasuredCounters("", both(1.5e9, 0.25));
  EXPECT_EQ(measuredCountersOf(args).dram_bytes, 1.5e9);
  EXPECT_EQ(withMeasuredCounters("{}", both(3, 4)), withMeasuredCounters("", both(3, 4)));
}

TEST(MeasuredCounters, OnlyTheKnownOnesAndNothingForNothing) {
  MeasuredCounters bytes_only;
  bytes_only.dram_bytes = 1024;
  const std::string args = withMeasuredCounters(R"({"a": 1})", bytes_only);
  EXPECT_EQ(measuredCountersOf(args).dram_bytes, 1024.0);
  EXPECT_FALSE(measuredCountersOf(args).tensor_active_pct);
  EXPECT_EQ(withMeasuredCounters(R"({"a": 1})", MeasuredCounters{}), R"({"a": 1})");
  MeasuredCounters nan;
  nan.dram_bytes = std::nan("");
  EXPECT_EQ(withMeasuredCounters(R"({"a": 1})", nan), R"({"a": 1})");  // JSON has no NaN
}

TEST(MeasuredCounters, ArgsThatAreNotAnObjectStayAsTheyAre) {
  EXPECT_EQ(withMeasuredCounters("[1, 2]", both(1, 2)), "[1, 2]");
  EXPECT_TRUE(measuredCountersOf("not json").empty());
  EXPECT_TRUE(measuredCountersOf(R"j({"dram bytes (measured)": "many"})j").empty());
}

TEST(MeasuredCounters, SurviveExportAndImport) {
  test::SyntheticTrace s;
  s.step(0, 0, 100'000).launch(1, 1'000, 2'000);
  s.gpuWithArgs("nvjet_sm90_tst_gemm", 5'000, 50'000, 1, Category::Kernel,
                withMeasuredCounters(R"({"correlation": 1, "device": 0})", both(70123456, 63.25)));
  s.launch(2, 4'000, 2'000).gpu("vectorized_elementwise_kernel", 60'000, 5'000, 2);
  const Trace trace = s.build();
  const Trace back = importChromeTraceFromBuffer(exportChromeTraceToString(trace), "round trip");
  std::string why;
  EXPECT_TRUE(trace.sameContentAs(back, &why)) << why;
  int with = 0, without = 0;
  for (uint32_t t = 0; t < back.tracks.size(); ++t)
    for (uint32_t i = 0; i < back.tracks[t].size(); ++i) {
      if (back.tracks[t].category[i] != Category::Kernel) continue;
      const MeasuredCounters c = measuredCountersOf(back, {t, i});
      if (c.empty()) {
        ++without;
        continue;
      }
      ++with;
      EXPECT_EQ(c.dram_bytes, 70123456.0);
      EXPECT_EQ(c.tensor_active_pct, 63.25);
    }
  EXPECT_EQ(with, 1);
  EXPECT_EQ(without, 1);
}

}  // namespace
}  // namespace fuselab
