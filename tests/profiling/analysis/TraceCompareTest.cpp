// The A/B diff table: per-step figures of two fixtures against what the raw
// JSON says, a trace against itself, and traces without steps.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/compare/TraceCompare.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/FixtureJson.h"
#include "tests/support/SyntheticTrace.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

nlohmann::json readGzipJson(const std::filesystem::path& path) { return nlohmann::json::parse(test::gunzipFile(path)); }

struct RawFigures {
  int64_t first_step_start_ns = 0;  // absolute
  size_t steps = 0;
  double kernels_per_step = 0;
  std::map<std::string, int> kernel_counts;
};

RawFigures raw(const std::string& fixture) {
  const nlohmann::json doc = readGzipJson(test::fixture(fixture));
  const int64_t base = doc["baseTimeNanoseconds"].get<int64_t>();
  RawFigures r;
  const test::RawStepKernels steps = test::rawStepKernels(doc);
  r.steps = steps.steps.size();
  r.first_step_start_ns = base + std::llround(steps.steps.front().first * 1000.0);
  int kernels = 0;
  for (const auto& [name, step] : steps.kernels)
    if (step >= 0) {
      ++kernels;
      ++r.kernel_counts[name];
    }
  r.kernels_per_step = double(kernels) / double(r.steps);
  return r;
}

const CompareRow& row(const TraceComparison& c, const std::string& prefix) {
  for (const CompareRow& r : c.rows)
    if (r.metric.rfind(prefix, 0) == 0) return r;
  throw std::runtime_error("no row " + prefix);
}

TEST(TraceCompare, MlpAgainstLinearMatchesTheRawFiles) {
  const Trace a = importChromeTrace(test::fixture("mlp_eager.json.gz"));
  const Trace b = importChromeTrace(test::fixture("linear_eager.json.gz"));
  const TraceAnalysis aa = analyzeTrace(a), ba = analyzeTrace(b);
  const RawFigures ra = raw("mlp_eager.json.gz"), rb = raw("linear_eager.json.gz");

  CompareOptions o;
  o.align_step = 1;
  const TraceComparison c = compareTraces(a, aa, b, ba, o);
  EXPECT_EQ(c.a_steps, ra.steps);
  EXPECT_EQ(c.b_steps, rb.steps);
  const CompareRow& kernels = row(c, "kernels / step");
  EXPECT_DOUBLE_EQ(*kernels.a, ra.kernels_per_step);
  EXPECT_DOUBLE_EQ(*kernels.b, rb.kernels_per_step);
  EXPECT_DOUBLE_EQ(*kernels.delta(), rb.kernels_per_step - ra.kernels_per_step);
  EXPECT_DOUBLE_EQ(*kernels.ratio(), rb.kernels_per_step / ra.kernels_per_step);

  // Aligned on the second step of each: B's second step start + offset = A's.
  EXPECT_TRUE(c.aligned_on_step);
  EXPECT_EQ(aa.steps[1].start_ns - ba.steps[1].start_ns, c.b_offset_ns);
  EXPECT_EQ(c.alignment, aa.steps[1].name + " (A) with " + ba.steps[1].name + " (B)");

  // Kernel rows: every kernel name of both files, per step, in the slots that hold it.
  auto perStep = [&](const std::string& name, bool a_side) {
    double n = 0;
    for (const CompareKernelRow& k : c.kernels)
      if ((a_side ? k.a_name : k.b_name) == name) n += a_side ? k.a_per_step : k.b_per_step;
    return n;
  };
  for (const auto& [name, count] : ra.kernel_counts) EXPECT_DOUBLE_EQ(perStep(name, true), double(count) / double(ra.steps)) << name;
  for (const auto& [name, count] : rb.kernel_counts) EXPECT_DOUBLE_EQ(perStep(name, false), double(count) / double(rb.steps)) << name;
  // Slots are keyed by the launching op: the MLP's GEMMs come from aten::mm (or addmm) with shapes.
  EXPECT_TRUE(std::any_of(c.kernels.begin(), c.kernels.end(), [](const CompareKernelRow& k) {
    return k.key.op.rfind("aten::", 0) == 0 && !k.key.shapes.empty();
  }));

  const std::string text = comparisonText(c, "mlp", "linear");
  EXPECT_NE(text.find("kernels / step"), std::string::npos);
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2fx", rb.kernels_per_step / ra.kernels_per_step);
  EXPECT_NE(text.find(ratio), std::string::npos) << text;
}

TEST(TraceCompare, ATraceAgainstItselfHasNoDifferences) {
  const Trace a = importChromeTrace(test::fixture("mlp_eager.json.gz"));
  const TraceAnalysis aa = analyzeTrace(a);
  const TraceComparison c = compareTraces(a, aa, a, aa);
  EXPECT_EQ(c.b_offset_ns, 0);
  for (const CompareRow& r : c.rows) {
    ASSERT_TRUE(r.a && r.b) << r.metric;
    EXPECT_EQ(*r.delta(), 0.0) << r.metric;
    EXPECT_FALSE(r.noise.beyondNoise()) << r.metric;
    if (*r.a != 0) EXPECT_EQ(*r.ratio(), 1.0) << r.metric;
  }
  for (const CompareKernelRow& k : c.kernels) EXPECT_FALSE(k.noise.beyondNoise()) << k.label;
  EXPECT_EQ(c.verdictLine(), verdictText(aa.verdict.kind) + " (unchanged)");
  // The wall time per step is the median of the raw step durations.
  const nlohmann::json doc = readGzipJson(test::fixture("mlp_eager.json.gz"));
  std::vector<double> walls;
  for (const auto& ev : doc["traceEvents"])
    if (ev.value("name", "").rfind("ProfilerStep#", 0) == 0) walls.push_back(ev["dur"].get<double>() * 1000.0);
  ASSERT_EQ(walls.size(), 3u);
  std::sort(walls.begin(), walls.end());
  EXPECT_NEAR(*row(c, "wall time").a, walls[1], 1.0);
  EXPECT_NEAR(row(c, "wall time").a_stats.min, walls[0], 1.0);
  EXPECT_NEAR(row(c, "wall time").a_stats.max, walls[2], 1.0);
}

TEST(TraceCompare, TracesWithoutStepsCountAsOneStepAndAlignOnTheirStart) {
  test::SyntheticTrace sa;
  sa.launched("k1", 1000, 10, 1100, 50, 1).launched("k2", 1200, 10, 1300, 50, 2);
  test::SyntheticTrace sb;
  sb.step(1, 5000, 1000).launched("k1", 5100, 10, 5200, 50, 1);
  const Trace a = sa.build(), b = sb.build();
  const TraceAnalysis aa = analyzeTrace(a), ba = analyzeTrace(b);
  const TraceComparison c = compareTraces(a, aa, b, ba);
  EXPECT_FALSE(c.aligned_on_step);
  EXPECT_EQ(c.b_offset_ns, a.beginNs() - b.beginNs());
  EXPECT_NE(c.alignment.find("A has 0 step(s)"), std::string::npos) << c.alignment;
  const CompareRow& kernels = row(c, "kernels / step");
  EXPECT_EQ(*kernels.a, 2.0);  // the whole trace as one step
  EXPECT_EQ(*kernels.b, 1.0);
  EXPECT_NE(kernels.metric.find("(or trace)"), std::string::npos);
}

TEST(TraceCompare, GpuFiguresAreAbsentForACpuOnlyTrace) {
  test::SyntheticTrace sa;
  sa.step(1, 0, 1000).cpu("aten::mm", 10, 500);
  test::SyntheticTrace sb;
  sb.step(1, 0, 1000).cpu("aten::mm", 10, 300).launched("k", 20, 10, 100, 50, 1);
  const Trace a = sa.build(), b = sb.build();
  const TraceComparison c = compareTraces(a, analyzeTrace(a), b, analyzeTrace(b));
  EXPECT_FALSE(row(c, "kernels / step").a.has_value());
  EXPECT_FALSE(row(c, "kernels / step").delta().has_value());
  EXPECT_EQ(*row(c, "CPU dispatch / step").a, 500.0);
  EXPECT_EQ(*row(c, "CPU dispatch / step").b, 300.0);
  EXPECT_EQ(formatCompareValue(CompareUnit::Count, std::nullopt), "n/a");
}

}  // namespace
}  // namespace fuselab
