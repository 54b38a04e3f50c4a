// The flame graph: CPU time by stack with GPU time under the launch that
// started it, merged across steps; its inversion; the folded stacks' sums
// against the analysis on a real H100 trace, and a stack read back. How
// events nest: FlameNestingTest.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/stacks/FlameGraph.h"
#include "profiling/analysis/stacks/FoldedStacks.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/FlameFramePath.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

using test::frameAtPath;

// Two steps, each: linear > addmm > cudaLaunchKernel -> gemm (40 us on the
// GPU), and a copy launched from outside any op.
Trace twoSteps() {
  std::string events;
  for (int k = 0; k < 2; ++k) {
    const int t0 = 1000 * k;
    auto at = [&](int us) { return std::to_string(t0 + us); };
    const std::string corr = std::to_string(10 + k);
    events += R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" + std::to_string(k) +
              R"(", "pid": 1, "tid": 7, "ts": )" + at(0) + R"(, "dur": 100},
      {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 7, "ts": )" + at(10) + R"(, "dur": 50},
      {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 7, "ts": )" + at(15) + R"(, "dur": 40},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 7, "ts": )" + at(20) +
              R"(, "dur": 10, "args": {"correlation": )" + corr + R"(}},
      {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": )" + at(40) +
              R"(, "dur": 40, "args": {"correlation": )" + corr + R"(, "device": 0, "stream": 7}},
      {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": )" + at(85) +
              R"(, "dur": 5, "args": {"device": 0, "stream": 7}},)";
  }
  events.pop_back();
  return importChromeTraceFromBuffer(R"({"traceEvents": [)" + events + "]}", "flame-test");
}

TEST(FlameGraph, CpuStacksWithGpuTimeUnderTheLaunch) {
  const Trace t = twoSteps();
  const FlameGraph g = buildFlameGraph(t, {t.beginNs(), t.endNs(), {}});
  const FlameFrame* linear = frameAtPath(t, g, "thread 7;ProfilerStep#*;aten::linear");
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->count, 2u);  // the steps merged
  EXPECT_EQ(linear->cpu_total_ns, 100'000);
  EXPECT_EQ(linear->cpu_self_ns, 20'000);
  EXPECT_EQ(linear->gpu_total_ns, 80'000);
  const FlameFrame* gemm = frameAtPath(t, g, "thread 7;ProfilerStep#*;aten::linear;aten::addmm;cudaLaunchKernel;gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->kind, FrameKind::GpuOp);
  EXPECT_EQ(gemm->count, 2u);
  EXPECT_EQ(gemm->gpu_self_ns, 80'000);
  EXPECT_EQ(gemm->cpu_total_ns, 0);
  const FlameFrame* copies = frameAtPath(t, g, "[GPU ops without a launch];Memcpy HtoD");
  ASSERT_NE(copies, nullptr);
  EXPECT_EQ(copies->count, 2u);
  EXPECT_EQ(g.total(FlameMetric::Cpu), 200'000);  // two steps of 100 us
  EXPECT_EQ(g.total(FlameMetric::Gpu), 90'000);   // two gemms and two copies
}

TEST(FlameGraph, RangeClipsCpuTimeAndCountsGpuOpsByTheirLaunch) {
  const Trace t = twoSteps();
  const int64_t b = t.beginNs();
  // Inside step 0 from 12 us to 25 us: the launch (20 us) is in, its kernel
  // runs after the range and counts whole.
  const FlameGraph g = buildFlameGraph(t, {b + 12'000, b + 25'000, {}});
  EXPECT_EQ(g.total(FlameMetric::Cpu), 13'000);
  EXPECT_EQ(g.total(FlameMetric::Gpu), 40'000);
  const FlameFrame* addmm = frameAtPath(t, g, "thread 7;ProfilerStep#*;aten::linear;aten::addmm");
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(addmm->cpu_total_ns, 10'000);  // 15..25
  EXPECT_EQ(addmm->cpu_self_ns, 5'000);    // less the launch's 20..25
}

TEST(FlameGraph, InvertedPutsSelfTimeOnTop) {
  const Trace t = twoSteps();
  const FlameGraph g = buildFlameGraph(t, {t.beginNs(), t.endNs(), {}});
  for (FlameMetric m : {FlameMetric::Cpu, FlameMetric::Gpu}) {
    const FlameGraph inv = invertFlameGraph(g, m);
    EXPECT_TRUE(inv.inverted);
    EXPECT_EQ(inv.total(m), g.total(m));
    int64_t top = 0;
    for (uint32_t c : inv.root().children) top += inv.frames[c].total(m);
    EXPECT_EQ(top, g.total(m));
  }
  const FlameGraph inv = invertFlameGraph(g, FlameMetric::Gpu);
  const FlameFrame* callers = frameAtPath(t, inv, "gemm;cudaLaunchKernel;aten::addmm;aten::linear;ProfilerStep#*");
  ASSERT_NE(callers, nullptr);
  EXPECT_EQ(callers->gpu_total_ns, 80'000);
}

// Folded lines as (stack, microseconds).
std::map<std::string, int64_t> readFolded(const std::string& text) {
  std::map<std::string, int64_t> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t space = line.rfind(' ');
    EXPECT_NE(space, std::string::npos) << line;
    out[line.substr(0, space)] += std::stoll(line.substr(space + 1));
  }
  return out;
}

TEST(FoldedStacks, SumsEqualTheAnalysisOnARealTrace) {
  const Trace t = importChromeTrace(test::fixture("mlp_eager.json.gz"));
  const TraceAnalysis a = analyzeTrace(t);
  const FlameGraph g = buildFlameGraph(t, analysisFlameRange(t));

  int64_t gpu_ns = 0;
  for (const KernelRow& k : a.kernels) gpu_ns += k.total_ns;
  ASSERT_GT(gpu_ns, 0);
  EXPECT_EQ(g.total(FlameMetric::Gpu), gpu_ns);
  int64_t gpu_us = 0;
  for (const auto& [stack, us] : readFolded(foldedStacks(t, g, FlameMetric::Gpu))) gpu_us += us;
  EXPECT_EQ(gpu_us, std::llround(double(gpu_ns) / 1000.0));

  // CPU: every frame's self time adds up to the graph's total, and to the
  // threads' busy time in the steps.
  int64_t self_ns = 0;
  for (const FlameFrame& f : g.frames) self_ns += f.cpu_self_ns;
  EXPECT_EQ(self_ns, g.total(FlameMetric::Cpu));
  const auto cpu = readFolded(foldedStacks(t, g, FlameMetric::Cpu));
  int64_t cpu_us = 0;
  for (const auto& [stack, us] : cpu) cpu_us += us;
  EXPECT_EQ(cpu_us, std::llround(double(self_ns) / 1000.0));

  // A stack read back is the flame graph's frame: the largest one's self.
  const FlameFrame* largest = nullptr;
  for (const FlameFrame& f : g.frames)
    if (f.kind == FrameKind::Event && (!largest || f.cpu_self_ns > largest->cpu_self_ns)) largest = &f;
  ASSERT_NE(largest, nullptr);
  std::string path;
  for (uint32_t k : g.path(uint32_t(largest - g.frames.data()))) path += (path.empty() ? "" : ";") + frameLabel(t, g.frames[k]);
  ASSERT_TRUE(cpu.count(path)) << path;
  EXPECT_NEAR(double(cpu.at(path)), double(largest->cpu_self_ns) / 1000.0, 1.0);
}

TEST(FoldedStacks, NamesWithSeparatorsStayOneFrame) {
  const Trace t = importChromeTraceFromBuffer(
      R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a;b\nc", "pid": 1, "tid": 2, "ts": 0, "dur": 5}]})",
      "separators");
  const FlameGraph g = buildFlameGraph(t, {t.beginNs(), t.endNs(), {}});
  EXPECT_EQ(foldedStacks(t, g, FlameMetric::Cpu), "thread 2;a,b c 5\n");
  EXPECT_EQ(foldedStacks(t, g, FlameMetric::Gpu), "");
}

}  // namespace
}  // namespace fuselab
