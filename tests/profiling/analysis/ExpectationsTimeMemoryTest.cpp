// The tutorial's time-and-memory kinds: flame_share_under (the share of an
// op's CPU time in frames under it) and peak_memory_per_forward (what the
// steps add at their peak), with a trace that recorded no memory told apart
// from one whose steps allocated nothing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "profiling/analysis/expectations/Expectations.h"
#include "profiling/analysis/expectations/ExpectationsJson.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/ChromeTraceImport.h"

namespace fuselab {
namespace {

ExpectationResult check(const Trace& t, const std::string& json) {
  return evaluateExpectation(t, analyzeTrace(t), parseExpectation(nlohmann::json::parse(json), "test"));
}

// One step: linear (40 us) > addmm (30 us) > cudaLaunchKernel (12 us), and a
// device allocation of 1 MB inside addmm over 4 MB held before.
Trace step(const std::string& top_fields, bool with_memory) {
  std::string ev = R"(
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 10, "dur": 40},
    {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 15, "dur": 30},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 12})";
  if (with_memory)
    ev += R"(,
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 16,
     "args": {"Device Type": 1, "Device Id": 0, "Addr": 8, "Bytes": 1000000, "Total Allocated": 5000000, "Total Reserved": 8000000}},
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 60,
     "args": {"Device Type": 1, "Device Id": 0, "Addr": 8, "Bytes": -1000000, "Total Allocated": 4000000, "Total Reserved": 8000000}})";
  return importChromeTraceFromBuffer("{" + top_fields + R"("traceEvents": [)" + ev + "]}", "step");
}

TEST(ExpectationsTimeMemory, FlameShareUnderAnOp) {
  const Trace t = step("", false);
  const auto met = check(t, R"({"kind": "flame_share_under", "ops": ["aten::linear"], "pattern": "launch",
                                "min": 0.25, "max": 0.35, "text": "t"})");
  EXPECT_TRUE(met.met()) << met.explanation;
  EXPECT_DOUBLE_EQ(*met.value, 12.0 / 40.0);
  const auto missing = check(t, R"({"kind": "flame_share_under", "ops": ["aten::conv2d"], "pattern": "launch",
                                    "min": 0.1, "text": "t"})");
  EXPECT_EQ(missing.status, ExpectationStatus::Unavailable);
}

TEST(ExpectationsTimeMemory, PeakMemoryPerForward) {
  const std::string kind = R"({"kind": "peak_memory_per_forward", "min": 500000, "max": 2000000, "text": "t"})";
  const auto r = check(step("", true), kind);
  EXPECT_TRUE(r.met()) << r.explanation;
  EXPECT_DOUBLE_EQ(*r.value, 1e6);
  EXPECT_EQ(check(step("", false), kind).status, ExpectationStatus::Unavailable);
  // Recorded, nothing allocated: 0 bytes, not "unavailable".
  const auto none = check(step(R"("fuselab_memory_recorded": true, )", false),
                          R"({"kind": "peak_memory_per_forward", "min": 0, "max": 100, "text": "t"})");
  EXPECT_TRUE(none.met()) << none.explanation;
  EXPECT_DOUBLE_EQ(*none.value, 0.0);
}

}  // namespace
}  // namespace fuselab
