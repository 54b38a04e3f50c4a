// The measured-counters fields of `fuselab analyze`: in kernels[] and the
// text only for kernels that carry counters.
#include <gtest/gtest.h>

#include "app/report/AnalysisReport.h"
#include "profiling/trace/MeasuredCounters.h"
#include "tests/support/SyntheticTrace.h"

namespace fuselab {
namespace {

Trace trace(bool with_counters) {
  MeasuredCounters c;
  c.dram_bytes = 25e6;
  c.tensor_active_pct = 42.0;
  const std::string args = with_counters ? withMeasuredCounters(R"({"device": 0})", c) : R"({"device": 0})";
  test::SyntheticTrace s;
  s.step(0, 0, 100'000);
  s.launch(1, 1'000, 1'000).gpuWithArgs("gemm", 3'000, 10'000, 1, Category::Kernel, args);
  s.launch(2, 2'000, 1'000).gpu("relu", 14'000, 1'000, 2);
  return s.build();
}

const nlohmann::ordered_json& kernel(const nlohmann::ordered_json& j, const std::string& name) {
  for (const auto& k : j["kernels"])
    if (k["name"] == name) return k;
  throw std::runtime_error("no kernel " + name);
}

TEST(MeasuredReport, JsonFieldsBesideTheModelWhereMeasured) {
  const Trace t = trace(true);
  const TraceAnalysis a = analyzeTrace(t);
  const auto j = analysisJson(t, a);
  const auto& gemm = kernel(j, "gemm");
  EXPECT_EQ(gemm["measured_calls"], 1);
  EXPECT_EQ(gemm["measured_bytes_per_call"], 25e6);
  EXPECT_EQ(gemm["tensor_active_pct"], 42.0);
  EXPECT_TRUE(gemm.contains("model_bytes_per_call"));
  EXPECT_TRUE(gemm.contains("bytes"));
  EXPECT_FALSE(kernel(j, "relu").contains("measured_bytes_per_call"));
  int measured_ops = 0;
  for (const auto& op : j["roofline"]["gpu_ops"]) {
    if (!op.contains("measured_bytes")) continue;
    ++measured_ops;
    EXPECT_EQ(op["name"], "gemm");
    EXPECT_EQ(op["measured_bytes"], 25e6);
    EXPECT_EQ(op["tensor_active_pct"], 42.0);
  }
  EXPECT_EQ(measured_ops, 1);
  const std::string text = analysisText(t, a);
  EXPECT_NE(text.find("Measured hardware counters"), std::string::npos) << text;
  EXPECT_NE(text.find("DRAM bytes: measured 25 MB"), std::string::npos) << text;
  EXPECT_NE(text.find("tensor pipe active 42.0%"), std::string::npos) << text;
}

TEST(MeasuredReport, AbsentWithoutCounters) {
  const Trace t = trace(false);
  const TraceAnalysis a = analyzeTrace(t);
  const auto j = analysisJson(t, a);
  for (const auto& k : j["kernels"]) {
    EXPECT_FALSE(k.contains("measured_calls")) << k["name"];
    EXPECT_FALSE(k.contains("tensor_active_pct")) << k["name"];
  }
  for (const auto& op : j["roofline"]["gpu_ops"]) EXPECT_FALSE(op.contains("measured_bytes")) << op["name"];
  EXPECT_EQ(analysisText(t, a).find("Measured hardware counters"), std::string::npos);
}

}  // namespace
}  // namespace fuselab
