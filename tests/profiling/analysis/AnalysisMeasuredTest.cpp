// The kernel rows' measured figures: present where kernel args carry
// counters (capture --counters), absent otherwise.
#include <gtest/gtest.h>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/MeasuredCounters.h"
#include "tests/support/SyntheticTrace.h"

namespace fuselab {
namespace {

std::string counterArgs(double bytes, double pct) {
  MeasuredCounters c;
  c.dram_bytes = bytes;
  c.tensor_active_pct = pct;
  return withMeasuredCounters(R"({"device": 0})", c);
}

const KernelRow& row(const TraceAnalysis& a, const std::string& name) {
  for (const KernelRow& r : a.kernels)
    if (r.name == name) return r;
  throw std::runtime_error("no row " + name);
}

TEST(AnalysisMeasured, MeanPerNameOverTheMeasuredCalls) {
  test::SyntheticTrace s;
  s.step(0, 0, 100'000);
  s.launch(1, 1'000, 1'000).gpu("gemm", 3'000, 10'000, 1);  // step 0: not measured
  s.launch(2, 2'000, 1'000).gpu("relu", 14'000, 1'000, 2);
  s.step(1, 100'000, 100'000);
  s.launch(3, 101'000, 1'000).gpuWithArgs("gemm", 103'000, 10'000, 3, Category::Kernel, counterArgs(1000, 60));
  s.launch(4, 102'000, 1'000).gpuWithArgs("relu", 114'000, 1'000, 4, Category::Kernel, counterArgs(300, 0));
  s.launch(5, 103'000, 1'000).gpuWithArgs("gemm", 116'000, 10'000, 5, Category::Kernel, counterArgs(3000, 80));
  const Trace trace = s.build();
  const TraceAnalysis a = analyzeTrace(trace);
  EXPECT_TRUE(anyMeasuredFigures(a.kernels));
  const KernelRow& gemm = row(a, "gemm");
  EXPECT_EQ(gemm.count, 3u);
  EXPECT_EQ(gemm.measured.calls, 2u);
  EXPECT_EQ(gemm.measured.bytes_per_call, 2000.0);
  EXPECT_EQ(gemm.measured.tensor_active_pct, 70.0);
  const KernelRow& relu = row(a, "relu");
  EXPECT_EQ(relu.measured.calls, 1u);
  EXPECT_EQ(relu.measured.bytes_per_call, 300.0);
  EXPECT_EQ(relu.measured.tensor_active_pct, 0.0);
}

TEST(AnalysisMeasured, AbsentWithoutCounters) {
  test::SyntheticTrace s;
  s.step(0, 0, 100'000);
  s.launch(1, 1'000, 1'000).gpuWithArgs("gemm", 3'000, 10'000, 1, Category::Kernel, R"({"note": "(measured) elsewhere"})");
  s.launch(2, 2'000, 1'000).gpu("relu", 14'000, 1'000, 2);
  const TraceAnalysis a = analyzeTrace(s.build());
  EXPECT_FALSE(anyMeasuredFigures(a.kernels));
  for (const KernelRow& r : a.kernels) {
    EXPECT_EQ(r.measured.calls, 0u) << r.name;
    EXPECT_FALSE(r.measured.bytes_per_call) << r.name;
    EXPECT_FALSE(r.measured.tensor_active_pct) << r.name;
  }
}

}  // namespace
}  // namespace fuselab
