// The sweep on CPU workloads with tiny sizes: token ranges, which variants run
// where, the CSV, cancelling, and the crossover arithmetic.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "app/capture/Sweep.h"
#include "kernels/WorkloadRegistry.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

std::vector<std::vector<std::string>> parseCsv(const std::string& text) {
  // Enough CSV for our own output: quoted fields with doubled quotes.
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field), field.clear();
    } else if (c == '\n') {
      rows.back().push_back(field), field.clear();
      rows.emplace_back();
    } else {
      field += c;
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

SweepOptions tinyCpuSweep() {
  SweepOptions o;
  o.base.workload = "mlp";
  o.base.dim = 16;
  o.base.hidden = 32;
  o.base.dtype = DType::FP32;
  o.base.device = Device::Cpu;
  o.variants = {"eager", "graph", "fused"};
  o.tokens = {1, 2, 4};
  o.warmup = 1;
  o.rounds = 2;
  o.min_round_ns = 0;  // one forward per round: fast, and timing is not what is tested
  o.capture_steps = 1;
  return o;
}

TEST(SweepTokens, RangesAndLists) {
  EXPECT_EQ(parseTokenRange("1:8"), (std::vector<int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(parseTokenRange("3:20"), (std::vector<int64_t>{3, 6, 12, 20}));
  EXPECT_EQ(parseTokenRange("64,1,512,64"), (std::vector<int64_t>{1, 64, 512}));
  EXPECT_EQ(parseTokenRange("1:8192").size(), 14u);
  for (const char* bad : {"0:4", "a:b", "8:4", "", "1,,2", "1:99999999999"}) {
    try {
      parseTokenRange(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const SweepError& e) {
      EXPECT_NE(std::string(e.what()).find("--tokens"), std::string::npos) << e.what();
    }
  }
}

TEST(SweepParams, VariantsMapToWorkloadsAndSayWhyTheyCannotRun) {
  SweepOptions o = tinyCpuSweep();
  std::string why;
  WorkloadParams p = sweepParams(o, "eager", 64, &why);
  EXPECT_TRUE(why.empty());
  EXPECT_EQ(p.workload, "mlp");
  EXPECT_EQ(p.batch * p.seq, 64);
  EXPECT_FALSE(p.graph);
  p = sweepParams(o, "graph", 64, &why);
  EXPECT_TRUE(p.graph);
  EXPECT_NE(why.find("CUDA graphs need a CUDA GPU"), std::string::npos) << why;
  why.clear();
  p = sweepParams(o, "fused", 64, &why);
  EXPECT_EQ(p.workload, "fused_mlp");
  EXPECT_NE(why.find("runs only on a CUDA GPU"), std::string::npos) << why;
  o.base.device = Device::Cuda;
  why.clear();
  sweepParams(o, "fused", 64, &why);
  EXPECT_TRUE(why.empty()) << why;

  o.base.workload = "linear";
  why.clear();
  p = sweepParams(o, "eager", 32, &why);
  EXPECT_EQ(p.batch, 32);
  sweepParams(o, "fused", 32, &why);
  EXPECT_NE(why.find("no fused version of linear"), std::string::npos) << why;

  o.base.workload = "matmul_add";
  EXPECT_THROW(sweepParams(o, "eager", 32, nullptr), SweepError);
  EXPECT_THROW(sweepParams(tinyCpuSweep(), "compiled", 32, nullptr), SweepError);
}

TEST(SweepRun, CpuEagerRunsAndTheGpuVariantsAreSkipped) {
  const SweepOptions o = tinyCpuSweep();
  std::vector<int64_t> seen;
  SweepOptions with_callback = o;
  with_callback.on_point = [&](const SweepSeries& s, const SweepPoint& p) {
    EXPECT_EQ(s.variant, "eager");
    seen.push_back(p.tokens);
  };
  SweepProgress progress;
  const SweepResult r = runSweep(with_callback, &progress);
  EXPECT_FALSE(r.cancelled);
  EXPECT_EQ(r.device, "cpu");
  EXPECT_EQ(seen, o.tokens);
  EXPECT_DOUBLE_EQ(progress.fraction.load(), 1.0);
  ASSERT_EQ(r.series.size(), 3u);

  const SweepSeries& eager = r.series[0];
  EXPECT_FALSE(eager.skipped);
  ASSERT_EQ(eager.points.size(), 3u);
  for (size_t i = 0; i < eager.points.size(); ++i) {
    const SweepPoint& p = eager.points[i];
    EXPECT_TRUE(p.ok) << p.error;
    EXPECT_EQ(p.tokens, o.tokens[i]);
    EXPECT_GT(p.time_per_forward_ns, 0);
    EXPECT_EQ(p.forwards_timed, o.rounds);  // min_round_ns 0: one forward per round
    EXPECT_FALSE(p.gpu_utilization.has_value()) << "no GPU activity on the CPU";
    EXPECT_EQ(p.verdict, "no_gpu_work");
  }
  EXPECT_TRUE(r.series[1].skipped);
  EXPECT_TRUE(r.series[1].points.empty());
  EXPECT_TRUE(r.series[2].skipped);

  // The CSV: a header, one row per eager point, one row per skipped variant.
  const auto rows = parseCsv(sweepCsv(r));
  ASSERT_EQ(rows.size(), 1u + 3u + 2u);
  EXPECT_EQ(rows[0].front(), "variant");
  EXPECT_EQ(rows[0].size(), 11u);
  for (size_t i = 1; i < rows.size(); ++i) ASSERT_EQ(rows[i].size(), 11u) << i;
  for (size_t i = 0; i < 3; ++i) {
    const auto& row = rows[1 + i];
    EXPECT_EQ(row[0], "eager");
    EXPECT_EQ(row[1], "mlp");
    EXPECT_EQ(row[2], std::to_string(o.tokens[i]));
    EXPECT_EQ(row[3], "ok");
    EXPECT_NEAR(std::stod(row[4]), eager.points[i].time_per_forward_ns / 1000.0, 0.0005 + 1e-9);  // 3 decimals
    EXPECT_EQ(row[5], "");  // no utilization on the CPU
    EXPECT_EQ(row[8], "no_gpu_work");
  }
  EXPECT_EQ(rows[4][0], "graph");
  EXPECT_EQ(rows[4][3], "skipped");
  EXPECT_EQ(rows[4][10], r.series[1].skip_reason);
  EXPECT_EQ(rows[5][0], "fused");

  const std::filesystem::path file = test::scratchDir("SweepCsv") / "sweep.csv";
  writeSweepCsv(r, file);
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), sweepCsv(r));
  EXPECT_NE(sweepText(r).find("skipped: CUDA graphs need a CUDA GPU"), std::string::npos);
}

TEST(SweepRun, CancelStopsAfterTheCurrentPoint) {
  SweepOptions o = tinyCpuSweep();
  o.variants = {"eager"};
  SweepProgress progress;
  o.on_point = [&](const SweepSeries&, const SweepPoint&) { progress.cancel = true; };
  const SweepResult r = runSweep(o, &progress);
  EXPECT_TRUE(r.cancelled);
  ASSERT_EQ(r.series.size(), 1u);
  EXPECT_EQ(r.series[0].points.size(), 1u);
  EXPECT_EQ(progress.phase(), "cancelled");
  EXPECT_NE(sweepText(r).find("cancelled"), std::string::npos);
}

TEST(SweepRun, FailedPointsAreRecordedAndTheSweepGoesOn) {
  SweepOptions o = tinyCpuSweep();
  o.variants = {"eager"};
  o.base.dim = SizeLimits::kMaxDim + 1;
  o.tokens = {1, 2};
  const SweepResult r = runSweep(o);
  ASSERT_EQ(r.series[0].points.size(), 2u);
  for (const auto& p : r.series[0].points) {
    EXPECT_FALSE(p.ok);
    EXPECT_NE(p.error.find("dim"), std::string::npos) << p.error;
  }
  const auto rows = parseCsv(sweepCsv(r));
  EXPECT_EQ(rows[1][3], "failed");
  EXPECT_FALSE(r.series[0].crossover.found);
}

std::vector<SweepPoint> points(const std::vector<std::pair<int64_t, double>>& tokens_us) {
  std::vector<SweepPoint> out;
  for (auto [t, us] : tokens_us) {
    SweepPoint p;
    p.tokens = t;
    p.ok = true;
    p.time_per_forward_ns = us * 1000.0;
    out.push_back(p);
  }
  return out;
}

TEST(SweepCrossover, FloorMeetsTheComputeLine) {
  // The numbers measured on an H100 for the eager MLP (DESIGN.md).
  const SweepCrossover c = findCrossover(points({{1, 81}, {64, 60}, {512, 53}, {8192, 263}}));
  ASSERT_TRUE(c.found) << c.explanation;
  EXPECT_DOUBLE_EQ(c.floor_ns, 53'000.0);  // the fastest of the three smallest points
  EXPECT_DOUBLE_EQ(c.slope_ns_per_token, 263'000.0 / 8192.0);
  EXPECT_DOUBLE_EQ(c.tokens, 53'000.0 / (263'000.0 / 8192.0));
  EXPECT_NE(c.explanation.find("they meet at about 1651 tokens"), std::string::npos) << c.explanation;
}

TEST(SweepCrossover, FlatCurvesHaveNoCrossover) {
  SweepCrossover c = findCrossover(points({{1, 16}, {64, 18}, {512, 27}}));
  EXPECT_FALSE(c.found);
  EXPECT_NE(c.explanation.find("no crossover in range"), std::string::npos) << c.explanation;
  c = findCrossover(points({{1, 16}}));
  EXPECT_FALSE(c.found);
  // Already compute-bound at the smallest size: the line meets the floor below it.
  c = findCrossover(points({{1024, 100}, {2048, 250}, {4096, 800}}));
  EXPECT_FALSE(c.found);
  EXPECT_NE(c.explanation.find("compute-bound over the whole range"), std::string::npos) << c.explanation;
}

}  // namespace
}  // namespace fuselab

namespace fuselab {
namespace {

SweepPoint allReducePoint(int64_t tokens, const std::string& proto, bool ok = true) {
  SweepPoint p;
  p.tokens = tokens;
  p.ok = ok;
  p.time_per_forward_ns = 1000.0 * double(tokens);
  p.nccl_algo_proto = proto;
  return p;
}

TEST(SweepNcclProtocols, AnAllReduceSeriesSplitsWhereNcclChangesProtocol) {
  SweepSeries s;
  s.variant = "eager, 2 ranks";
  s.points = {allReducePoint(1, "RING LL"), allReducePoint(2, "RING LL"), allReducePoint(4, "RING LL128"),
              allReducePoint(8, "", false), allReducePoint(16, "RING Simple")};
  const std::vector<SweepSeries> parts = splitByNcclProtocol(s);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[0].variant, "eager, 2 ranks: RING LL");
  EXPECT_EQ(parts[0].points.size(), 2u);
  EXPECT_EQ(parts[1].variant, "eager, 2 ranks: RING LL128");
  EXPECT_EQ(parts[2].variant, "eager, 2 ranks: no NCCL record");
  EXPECT_FALSE(parts[2].points[0].ok);
  EXPECT_EQ(parts[3].points[0].tokens, 16);
  size_t points = 0;
  for (const SweepSeries& p : parts) points += p.points.size();
  EXPECT_EQ(points, s.points.size());  // none lost
}

TEST(SweepNcclProtocols, OneProtocolOrNoneKeepsTheSeriesWhole) {
  SweepSeries s;
  s.variant = "eager, 2 ranks";
  s.points = {allReducePoint(1, "RING LL"), allReducePoint(2, "RING LL"), allReducePoint(4, "", false)};
  ASSERT_EQ(splitByNcclProtocol(s).size(), 1u);
  EXPECT_EQ(splitByNcclProtocol(s)[0].variant, "eager, 2 ranks");
  s.points = {allReducePoint(1, ""), allReducePoint(2, "")};  // Gloo: no side files
  EXPECT_EQ(splitByNcclProtocol(s).size(), 1u);
}

}  // namespace
}  // namespace fuselab
