// The analysis on the real torch.profiler fixtures. Expected values are
// derived here from the raw JSON (read with nlohmann, times as double us),
// not from the Trace model or the analysis code.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/FixtureJson.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

nlohmann::json readGzipJson(const std::filesystem::path& path) { return nlohmann::json::parse(test::gunzipFile(path)); }

struct RawOp {
  std::string name, cat;
  double ts = 0, dur = 0;  // us
  double attributed = 0;   // launch ts, else own ts
  std::string stream;      // "pid/tid"
};

// What the raw file says, in the terms of DESIGN.md's definitions.
struct Expected {
  std::vector<std::pair<double, double>> steps;  // ts, dur
  std::vector<RawOp> ops;                        // in-scope GPU ops
  std::map<int64_t, double> launch_ts;           // correlation -> launch ts
  std::vector<nlohmann::json> events;            // all X events
};

Expected expectedFrom(const nlohmann::json& doc) {
  Expected e;
  for (const auto& ev : doc["traceEvents"]) {
    if (ev.value("ph", "") != "X") continue;
    e.events.push_back(ev);
    std::string name = ev.value("name", ""), cat = ev.value("cat", "");
    if (name.rfind("ProfilerStep#", 0) == 0) e.steps.emplace_back(ev["ts"].get<double>(), ev["dur"].get<double>());
    if ((cat == "cuda_runtime" || cat == "cuda_driver") && ev.contains("args") && ev["args"].contains("correlation"))
      e.launch_ts.emplace(ev["args"]["correlation"].get<int64_t>(), ev["ts"].get<double>());
  }
  std::sort(e.steps.begin(), e.steps.end());
  for (const auto& ev : e.events) {
    std::string cat = ev.value("cat", "");
    if (cat != "kernel" && cat != "gpu_memcpy" && cat != "gpu_memset") continue;
    RawOp op{ev["name"], cat, ev["ts"].get<double>(), ev["dur"].get<double>(), 0, ""};
    op.stream = ev["pid"].dump() + "/" + ev["tid"].dump();
    op.attributed = op.ts;
    if (ev.contains("args") && ev["args"].contains("correlation"))
      if (auto it = e.launch_ts.find(ev["args"]["correlation"].get<int64_t>()); it != e.launch_ts.end())
        op.attributed = it->second;
    bool in_scope = e.steps.empty();
    for (const auto& [ts, dur] : e.steps) in_scope |= op.attributed >= ts && op.attributed <= ts + dur;
    if (in_scope) e.ops.push_back(op);
  }
  return e;
}

class AnalysisFixture : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    path_ = test::fixture(GetParam());
    trace_ = importChromeTrace(path_);
    expected_ = expectedFrom(readGzipJson(path_));
    analysis_ = analyzeTrace(trace_);
  }
  std::filesystem::path path_;
  Trace trace_;
  Expected expected_;
  TraceAnalysis analysis_;
};

TEST_P(AnalysisFixture, StepsAndKernelsPerStepMatchTheRawFile) {
  ASSERT_EQ(analysis_.steps.size(), expected_.steps.size());
  for (size_t k = 0; k < expected_.steps.size(); ++k) {
    const auto [ts, dur] = expected_.steps[k];
    const StepStats& s = analysis_.steps[k];
    EXPECT_NEAR(double(s.wall_ns), dur * 1000.0, 1.0) << s.name;
    uint64_t kernels = 0, gpu_ops = 0;
    for (const RawOp& op : expected_.ops)
      if (op.attributed >= ts && op.attributed <= ts + dur) {
        gpu_ops++;
        kernels += op.cat == "kernel";
      }
    EXPECT_EQ(s.kernels, kernels) << s.name;
    EXPECT_EQ(s.gpu_ops, gpu_ops) << s.name;
    EXPECT_EQ(s.launches, gpu_ops) << s.name << ": one launch call per GPU op in these eager traces";
  }
}

TEST_P(AnalysisFixture, KernelTableCountsMatchTheRawFile) {
  std::map<std::string, uint64_t> counts;
  for (const RawOp& op : expected_.ops) counts[op.name]++;
  std::map<std::string, uint64_t> ours;
  for (const KernelRow& r : analysis_.kernels) ours[r.name] += r.count;
  EXPECT_EQ(ours, counts);
  EXPECT_EQ(analysis_.gpu_op_count, expected_.ops.size());
}

TEST_P(AnalysisFixture, IdleTimeAndBusyTimeMatchTheRawFile) {
  std::map<std::string, std::vector<const RawOp*>> by_stream;
  for (const RawOp& op : expected_.ops) by_stream[op.stream].push_back(&op);
  double idle_us = 0;
  size_t gaps = 0;
  std::vector<std::pair<double, double>> busy;
  for (auto& [stream, ops] : by_stream) {
    std::sort(ops.begin(), ops.end(), [](const RawOp* a, const RawOp* b) { return a->ts < b->ts; });
    double end = ops.front()->ts + ops.front()->dur;
    for (size_t i = 1; i < ops.size(); ++i) {
      if (ops[i]->ts > end) idle_us += ops[i]->ts - end, ++gaps;
      end = std::max(end, ops[i]->ts + ops[i]->dur);
    }
    for (const RawOp* op : ops) busy.emplace_back(op->ts, op->ts + op->dur);
  }
  EXPECT_NEAR(double(analysis_.idle.totalNs()), idle_us * 1000.0, 1.0 * double(gaps + 1));
  EXPECT_EQ(analysis_.idle.gap_count, gaps);

  std::sort(busy.begin(), busy.end());
  double busy_us = 0, cur_s = busy.front().first, cur_e = busy.front().second;
  for (const auto& [s, e] : busy) {
    if (s > cur_e) busy_us += cur_e - cur_s, cur_s = s;
    cur_e = std::max(cur_e, e);
  }
  busy_us += cur_e - cur_s;
  EXPECT_NEAR(double(analysis_.utilization.busy_ns), busy_us * 1000.0, 1.0 * double(busy.size()));
  EXPECT_GT(analysis_.utilization.fraction, 0.0);
  EXPECT_LE(analysis_.utilization.fraction, 1.0);
}

TEST_P(AnalysisFixture, ViewOpsLaunchNothingAndLaunchingOpsCarryTheirKernelsTime) {
  // aten::t / aten::transpose / aten::view are metadata-only: zero GPU time.
  if (GetParam() != "multistream_memcpy.json.gz") {
    auto t = std::find_if(analysis_.cpu_ops.begin(), analysis_.cpu_ops.end(),
                          [](const CpuOpRow& r) { return r.name == "aten::t"; });
    ASSERT_NE(t, analysis_.cpu_ops.end()) << "nn.Linear traces call aten::t";
    auto linear = std::find_if(analysis_.cpu_ops.begin(), analysis_.cpu_ops.end(),
                               [](const CpuOpRow& r) { return r.name == "aten::linear"; });
    ASSERT_NE(linear, analysis_.cpu_ops.end());
    EXPECT_GT(linear->gpu_ns, 0);
    EXPECT_GE(linear->gpu_ops, linear->calls) << "a GEMM per aten::linear (cuBLAS may add a workspace memset)";
  }
  for (const CpuOpRow& r : analysis_.cpu_ops)
    if (r.name == "aten::t" || r.name == "aten::transpose" || r.name == "aten::view") {
      EXPECT_EQ(r.gpu_ns, 0) << r.name;
      EXPECT_EQ(r.gpu_ops, 0u) << r.name;
    }
  // Every GPU op with a launch call is credited to that call's row.
  int64_t launch_rows_gpu_ns = 0;
  for (const CpuOpRow& r : analysis_.cpu_ops)
    if (r.category == Category::CudaRuntime || r.category == Category::CudaDriver) launch_rows_gpu_ns += r.gpu_ns;
  double launched_us = 0;
  for (const auto& ev : expected_.events) {
    std::string cat = ev.value("cat", "");
    if ((cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") && ev.contains("args") &&
        ev["args"].contains("correlation") && expected_.launch_ts.count(ev["args"]["correlation"].get<int64_t>()))
      launched_us += ev["dur"].get<double>();
  }
  EXPECT_NEAR(double(launch_rows_gpu_ns), launched_us * 1000.0, 1.0 * double(expected_.events.size()));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, AnalysisFixture,
                         ::testing::Values("linear_eager.json.gz", "mlp_eager.json.gz", "multistream_memcpy.json.gz"),
                         [](const auto& info) { return info.param.substr(0, info.param.find('.')); });

TEST(AnalysisMlpEager, FiveKernelsPerStepOverThreeSteps) {
  Trace trace = importChromeTrace(test::fixture("mlp_eager.json.gz"));
  TraceAnalysis a = analyzeTrace(trace);
  ASSERT_EQ(a.steps.size(), 3u);
  for (const StepStats& s : a.steps) EXPECT_EQ(s.kernels, 5u) << s.name;
  EXPECT_EQ(a.kernel_count, 15u);
  EXPECT_TRUE(a.scope.from_steps);
  // The GeGLU MLP at this size: 3 GEMMs (gate and up share a variant), GELU, mul.
  uint64_t gemm_kinds = 0;
  for (const KernelRow& r : a.kernels) gemm_kinds += r.name.rfind("nvjet", 0) == 0;
  EXPECT_EQ(gemm_kinds, 2u);
}

TEST(AnalysisMultistream, NoStepsMeansWholeTraceAndEveryStreamHasGaps) {
  Trace trace = importChromeTrace(test::fixture("multistream_memcpy.json.gz"));
  TraceAnalysis a = analyzeTrace(trace);
  EXPECT_FALSE(a.scope.from_steps);
  EXPECT_TRUE(a.steps.empty());
  EXPECT_EQ(a.idle_per_stream.size(), 3u);
}

}  // namespace
}  // namespace fuselab
