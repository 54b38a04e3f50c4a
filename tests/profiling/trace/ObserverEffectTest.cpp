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
  EXPECT_NE(describeObserverEffect(faster).find("no slower than unprofiled (0.97x"), std::string::npos)
      << describeObserverEffect(faster);
}

TEST(ObserverEffect, SurvivesExportAndImport) {
  Trace t;
  t.finalize();
  EXPECT_FALSE(observerEffectOf(t).has_value());
  setObserverEffect(t, sample());
  setObserverEffect(t, sample());  // replaces, never duplicates
  EXPECT_EQ(t.meta.extra_fields.size(), 1u);
  const Trace back = importChromeTraceFromBuffer(exportChromeTraceToString(t), "roundtrip.json");
  const auto e = observerEffectOf(back);
  ASSERT_TRUE(e.has_value());
  EXPECT_DOUBLE_EQ(e->unprofiled_ns_per_step, 10'000);
  EXPECT_DOUBLE_EQ(e->profiled_ns_per_step, 12'200);
  EXPECT_EQ(e->unprofiled_steps, 16);
}

TEST(ObserverEffect, MalformedFieldsAreIgnored) {
  for (const char* raw : {"[1,2]", "{\"unprofiled_ns_per_step\": 0, \"profiled_ns_per_step\": 5}",
                          "{\"unprofiled_ns_per_step\": \"10\", \"profiled_ns_per_step\": 5}", "{not json"}) {
    Trace t;
    t.meta.extra_fields.emplace_back(std::string(kObserverEffectField), raw);
    EXPECT_FALSE(observerEffectOf(t).has_value()) << raw;
  }
}

}  // namespace
}  // namespace fuselab
