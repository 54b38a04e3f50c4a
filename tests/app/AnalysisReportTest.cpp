// The text and JSON reports of an analysis built from a small in-memory trace.
#include <gtest/gtest.h>

#include "app/report/AnalysisReport.h"
#include "tests/support/AddEvent.h"

namespace fuselab {
namespace {

Trace smallTrace() {
  Trace t;
  uint32_t cpu = t.trackFor("1", "1"), gpu = t.trackFor("0", "7");
  auto add = [&](uint32_t track, const char* name, Category cat, int64_t start, int64_t dur, int64_t corr) {
    test::addEvent(t, track, name, start, dur, cat, corr);
  };
  const int64_t base = 1'000'000'000;
  add(cpu, "ProfilerStep#1", Category::UserAnnotation, base, 100'000, -1);
  add(cpu, "aten::mm", Category::CpuOp, base + 1'000, 20'000, -1);
  add(cpu, "cudaLaunchKernel", Category::CudaRuntime, base + 2'000, 5'000, 1);
  add(gpu, "gemm", Category::Kernel, base + 10'000, 4'000, 1);
  add(cpu, "aten::add", Category::CpuOp, base + 50'000, 20'000, -1);
  add(cpu, "cudaLaunchKernel", Category::CudaRuntime, base + 51'000, 5'000, 2);
  add(gpu, "add_kernel", Category::Kernel, base + 60'000, 1'000, 2);
  t.meta.source = "small.json";
  t.finalize();
  return t;
}

TEST(AnalysisReport, JsonFigures) {
  Trace t = smallTrace();
  TraceAnalysis a = analyzeTrace(t);
  auto j = analysisJson(t, a);
  EXPECT_EQ(j["trace"]["source"], "small.json");
  EXPECT_EQ(j["trace"]["begin_ns"], 1'000'000'000);
  EXPECT_EQ(j["scope"]["from_steps"], true);
  EXPECT_EQ(j["scope"]["start_ns"], 0);  // relative to the trace begin
  EXPECT_EQ(j["scope"]["span_ns"], 100'000);
  EXPECT_EQ(j["utilization"]["busy_ns"], 5'000);
  EXPECT_EQ(j["idle"]["host_wait_ns"], 46'000);  // gemm ends at 14 us, add launched at 51 us
  EXPECT_EQ(j["idle"]["gaps"], 1);
  ASSERT_EQ(j["steps"].size(), 1u);
  EXPECT_EQ(j["steps"][0]["name"], "ProfilerStep#1");
  EXPECT_EQ(j["steps"][0]["kernels"], 2);
  EXPECT_EQ(j["steps"][0]["launches"], 2);
  EXPECT_EQ(j["kernels"][0]["name"], "gemm");
  EXPECT_EQ(j["kernels"][0]["category"], "kernel");
  EXPECT_EQ(j["verdict"]["kind"], "overhead_bound");
  ASSERT_EQ(j["longest_gaps"].size(), 1u);
  EXPECT_EQ(j["longest_gaps"][0]["cause"], "host_wait");
  EXPECT_EQ(j["longest_gaps"][0]["prev_op"]["name"], "gemm");
  EXPECT_EQ(j["longest_gaps"][0]["next_op"]["name"], "add_kernel");
  EXPECT_EQ(j["longest_gaps"][0]["start_ns"], 14'000);
  EXPECT_EQ(j["launch_delay"]["count"], 2);
  EXPECT_EQ(j["launch_delay"]["max_ns"], 4'000);  // add: 60 us - (51 + 5) us
}

TEST(AnalysisReport, TextNamesStepsVerdictAndKernels) {
  Trace t = smallTrace();
  std::string text = analysisText(t, analyzeTrace(t));
  for (const char* needle : {"small.json", "ProfilerStep#1", "GPU utilization: 5.0%", "host wait", "46.0 us",
                             "Verdict: overhead_bound", "gemm", "aten::mm", "Diagnostics: none"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
}

}  // namespace
}  // namespace fuselab
