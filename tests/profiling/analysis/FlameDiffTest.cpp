// The differential flame graph: a frame that takes twice the time in every
// step of B is +100% beyond the noise; one that is the same in A and B is
// within it (NaN); one only B has is +1.
#include <gtest/gtest.h>

#include <cmath>

#include "profiling/analysis/compare/FlameDiff.h"
#include "profiling/trace/ChromeTraceImport.h"

namespace fuselab {
namespace {

// Four steps of 100 us, each: "steady" 20 us (+-1 us from step to step) and
// "grows" `grows_us`; B adds "new" 5 us.
Trace steps(int grows_us, bool with_new) {
  std::string ev;
  for (int k = 0; k < 4; ++k) {
    const int t0 = 200 * k;
    auto x = [&](const char* cat, const std::string& name, int ts, int dur) {
      ev += std::string(ev.empty() ? "" : ",") + R"({"ph": "X", "cat": ")" + cat + R"(", "name": ")" + name +
            R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(t0 + ts) + R"(, "dur": )" + std::to_string(dur) + "}";
    };
    x("user_annotation", "ProfilerStep#" + std::to_string(k), 0, 100);
    x("cpu_op", "steady", 1, 20 + (k % 2));
    x("cpu_op", "grows", 30, grows_us + k % 2);
    if (with_new) x("cpu_op", "new", 90, 5);
  }
  return importChromeTraceFromBuffer(R"({"traceEvents": [)" + ev + "]}", "steps");
}

TEST(FlameDiff, ChangesBeyondTheNoiseAreColouredAndTheRestIsNot) {
  const Trace a = steps(20, false), b = steps(40, true);
  const FlameDiff d = diffFlameGraphs(a, b, FlameMetric::Cpu);
  EXPECT_EQ(d.steps_a, 4u);
  EXPECT_EQ(d.steps_b, 4u);
  auto change = [&](std::string_view name) {
    for (uint32_t f = 1; f < d.b.frames.size(); ++f)
      if (frameLabel(b, d.b.frames[f]) == name) return d.change[f];
    ADD_FAILURE() << "no frame " << name;
    return 0.0f;
  };
  EXPECT_NEAR(change("grows"), 1.0f, 0.06f);
  EXPECT_TRUE(std::isnan(change("steady")));
  EXPECT_FLOAT_EQ(change("new"), 1.0f);
  EXPECT_TRUE(std::isnan(change("ProfilerStep#*")));  // 100 us a step on both sides: its self time shrank as much
}

}  // namespace
}  // namespace fuselab
