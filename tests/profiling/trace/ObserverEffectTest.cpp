// The observer effect a capture stores in its trace: written, read back,
// kept through export and import, and refused when malformed.
#include <gtest/gtest.h>

#include "profiling/trace/ChromeTraceExport.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/ObserverEffect.h"

namespace fuselab {
namespace {

ObserverEffect sample() {
  ObserverEffect e;
  e.unprofiled_ns_per_step = 10'000;
  e.profiled_ns_per_step = 12'200;
  e.unprofiled_steps = 16;
  return e;
}

TEST(ObserverEffect, RatioAndSentence) {
  EXPECT_DOUBLE_EQ(sample().ratio(), 1.22);
  EXPECT_EQ(describeObserverEffect(sample()),
            "this capture ran 1.22x slower than unprofiled (12.2 us vs 10.0 us per step)");
  ObserverEffect faster = sample();
  faster.profiled_ns_per_step = 9'700;
  EXPECT_TRUE(faster.withinNoise());
  EXPECT_EQ(describeObserverEffect(faster),
            "within this machine's noise: the profiled steps were no slower than unprofiled (9.7 us vs 10.0 us per "
            "step)");
}

// The noise rule on made-up timings: repeated timings of the same forwards
// that spread wider than the ratio make the ratio noise.
TEST(ObserverEffect, ARatioInsideTheUnprofiledSpreadIsNoise) {
  ObserverEffect e = sample();  // 12.2 us profiled, 10.0 us fastest block
  e.unprofiled_block_ns = {10'000, 13'100, 11'000};
  EXPECT_NEAR(e.unprofiledSpread(), 1.31, 1e-9);
  EXPECT_TRUE(e.withinNoise());
  EXPECT_EQ(describeObserverEffect(e),
            "within this machine's noise: 1.22x (12.2 us vs 10.0 us per step), no more than repeated timings of the "
            "same forwards varied (3 unprofiled blocks after recording 10.0 us to 13.1 us)");
}

TEST(ObserverEffect, ARatioInsideTheRecordedStepsSpreadIsNoise) {
  // Quiet unprofiled blocks, but one recorded step preempted for 30x its time.
  ObserverEffect e = sample();
  e.profiled_ns_per_step = 340'000;
  e.unprofiled_block_ns = {10'000, 10'400, 10'200};
  e.profiled_step_ns = {12'000, 11'900, 1'000'000};
  EXPECT_NEAR(e.profiledSpread(), 1'000'000 / 11'900.0, 1e-9);
  EXPECT_TRUE(e.withinNoise());
}

TEST(ObserverEffect, ARatioOutsideEverySpreadIsTheProfilersCost) {
  ObserverEffect e = sample();
  e.unprofiled_block_ns = {10'000, 10'400, 10'200};
  e.profiled_step_ns = {12'100, 12'300, 12'200};
  EXPECT_FALSE(e.withinNoise());
  EXPECT_EQ(describeObserverEffect(e),
            "this capture ran 1.22x slower than unprofiled (12.2 us vs 10.0 us per step; 3 unprofiled blocks after "
            "recording 10.0 us to 10.4 us, 3 profiled forwards 12.1 us to 12.3 us)");
}

TEST(ObserverEffect, TheBlockBeforeTheProfilerIsNotNoise) {
  // On a GPU, forwards stay slower once CUPTI has run: the block before is
  // faster for that reason, and the spread of the two after it is the noise.
  ObserverEffect e = sample();  // 12.2 us profiled, 10.0 us the block before
  e.unprofiled_block_ns = {10'000, 13'000, 13'100};
  e.unprofiled_blocks_before = 1;
  EXPECT_NEAR(e.unprofiledSpread(), 13'100 / 13'000.0, 1e-12);
  EXPECT_FALSE(e.withinNoise());
  e.unprofiled_blocks_before = 0;
  EXPECT_TRUE(e.withinNoise());
}

TEST(ObserverEffect, OneBlockMeasuresNoSpread) {
  ObserverEffect e = sample();
  e.unprofiled_block_ns = {10'000};
  e.profiled_step_ns = {12'200};
  EXPECT_DOUBLE_EQ(e.unprofiledSpread(), 1);
  EXPECT_DOUBLE_EQ(e.profiledSpread(), 1);
  EXPECT_FALSE(e.withinNoise());  // slower than the only block: a cost, as far as one block tells
  e.profiled_ns_per_step = 9'000;
  EXPECT_TRUE(e.withinNoise());   // faster than unprofiled: noise, whatever the spread
}

TEST(ObserverEffect, SurvivesExportAndImport) {
  Trace t;
  t.finalize();
  EXPECT_FALSE(observerEffectOf(t).has_value());
  ObserverEffect written = sample();
  written.unprofiled_block_ns = {10'000, 10'700};
  written.profiled_step_ns = {12'000, 12'400, 12'200};
  written.unprofiled_blocks_before = 1;
  setObserverEffect(t, written);
  setObserverEffect(t, written);  // replaces, never duplicates
  EXPECT_EQ(t.meta.extra_fields.size(), 1u);
  const Trace back = importChromeTraceFromBuffer(exportChromeTraceToString(t), "roundtrip.json");
  const auto e = observerEffectOf(back);
  ASSERT_TRUE(e.has_value());
  EXPECT_DOUBLE_EQ(e->unprofiled_ns_per_step, 10'000);
  EXPECT_DOUBLE_EQ(e->profiled_ns_per_step, 12'200);
  EXPECT_EQ(e->unprofiled_steps, 16);
  EXPECT_EQ(e->unprofiled_block_ns, (std::vector<double>{10'000, 10'700}));
  EXPECT_EQ(e->profiled_step_ns, (std::vector<double>{12'000, 12'400, 12'200}));
  EXPECT_EQ(e->unprofiled_blocks_before, 1);
}

TEST(ObserverEffect, MalformedFieldsAreIgnored) {
  for (const char* raw : {"[1,2]", "{\"unprofiled_ns_per_step\": 0, \"profiled_ns_per_step\": 5}",
                          "{\"unprofiled_ns_per_step\": \"10\", \"profiled_ns_per_step\": 5}", "{not json"}) {
    Trace t;
    t.meta.extra_fields.emplace_back(std::string(kObserverEffectField), raw);
    EXPECT_FALSE(observerEffectOf(t).has_value()) << raw;
  }
  // A malformed block list drops the spread, not the effect.
  Trace t;
  t.meta.extra_fields.emplace_back(
      std::string(kObserverEffectField),
      R"({"unprofiled_ns_per_step": 10, "profiled_ns_per_step": 12, "unprofiled_block_ns": [10, "x", 12]})");
  const auto e = observerEffectOf(t);
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->unprofiled_block_ns.empty());
}

}  // namespace
}  // namespace fuselab
