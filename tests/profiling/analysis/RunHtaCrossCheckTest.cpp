// Cross-check of the run analysis with Holistic Trace Analysis (HTA):
// per rank, comm/compute overlap and the compute / non-compute / idle split
// within 1 percentage point of HTA's get_comm_comp_overlap and
// get_temporal_breakdown, on the HTA fixture and on a torch.profiler run of
// two GPUs; the straggler agrees with HTA's where HTA finds one; and where
// NCCL names its kernels ncclDevKernel_* (NCCL >= 2.19) HTA's straggler pass
// finds nothing while ours still names the rank.
// tests/hta/hta_run_crosscheck.py reports HTA's side.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "profiling/analysis/run/RunAnalysis.h"
#include "profiling/trace/RunLoader.h"
#include "tests/support/RunPython.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

constexpr int kHtaMissingExit = 3;

struct HtaReport {
  bool missing = false;  // hta not importable: the test skips
  test::PythonResult run;
  nlohmann::json json;
};

HtaReport htaReport(const std::vector<std::string>& args) {
  HtaReport r;
  r.run = test::runPython("tests/hta/hta_run_crosscheck.py", args);
  r.missing = r.run.exit_code == kHtaMissingExit;
  if (r.run.exit_code == 0) r.json = nlohmann::json::parse(r.run.output, nullptr, false);
  return r;
}

#define SKIP_WITHOUT_HTA(report)                                              \
  if ((report).missing)                                                       \
  GTEST_SKIP() << "hta not importable by " << test::pythonExe()               \
               << " (scripts/setup --tests installs holistictraceanalysis)"; \
  ASSERT_TRUE((report).json.is_object()) << (report).run.output

// Overlap and time split of every rank, against HTA's within 1 point.
void expectHtasFigures(const RunAnalysis& ours, const nlohmann::json& report) {
  ASSERT_EQ(report["comm_comp_overlap_pct"].size(), ours.ranks.size());
  for (const RankStats& r : ours.ranks) {
    const std::string rank = std::to_string(r.rank);
    EXPECT_NEAR(100.0 * r.overlap_fraction.value_or(0), report["comm_comp_overlap_pct"][rank].get<double>(), 1.0)
        << rank;
    const auto& theirs = report["temporal_breakdown_pct"][rank];
    EXPECT_NEAR(100.0 * r.time.fraction(r.time.compute_ns), theirs["compute"].get<double>(), 1.0) << rank;
    EXPECT_NEAR(100.0 * r.time.fraction(r.time.non_compute_ns), theirs["non_compute"].get<double>(), 1.0) << rank;
    EXPECT_NEAR(100.0 * r.time.fraction(r.time.idle_ns), theirs["idle"].get<double>(), 1.0) << rank;
  }
}

TEST(RunHtaCrossCheck, OverlapAndStragglersOnTheFixture) {
  const auto renamed = test::scratchDir("RunHtaCrossCheck-" + std::to_string(::getpid()));
  const HtaReport hta = htaReport({test::multirankFixtureDir().string(), "--renamed-into", renamed.string()});
  SKIP_WITHOUT_HTA(hta);
  const nlohmann::json& report = hta.json;

  const RunAnalysis ours = analyzeRun(loadRun(traceFilesIn(test::multirankFixtureDir())));
  for (const RankStats& r : ours.ranks) ASSERT_TRUE(r.overlap_fraction.has_value()) << r.rank;
  expectHtasFigures(ours, report);
  EXPECT_EQ(report["ranks"], nlohmann::json::array({0, 1}));
  ASSERT_FALSE(ours.stragglers.empty());
  EXPECT_EQ(report["stragglers"], nlohmann::json::array({ours.stragglers[0].rank}));

  // Renamed to the current NCCL scheme, HTA fails to find a communication
  // kernel; we find the same collectives and the same straggler.
  EXPECT_TRUE(report["stragglers_dev_kernel"].is_string()) << report["stragglers_dev_kernel"];
  const RunAnalysis dev = analyzeRun(loadRun(traceFilesIn(renamed)));
  ASSERT_EQ(dev.collectives.size(), ours.collectives.size());
  ASSERT_FALSE(dev.stragglers.empty());
  EXPECT_EQ(dev.stragglers[0].rank, ours.stragglers[0].rank);
  for (size_t i = 0; i < dev.ranks.size(); ++i) EXPECT_EQ(dev.ranks[i].overlap_fraction, ours.ranks[i].overlap_fraction);
  std::filesystem::remove(test::scratchDir(renamed.filename().string()));
}

// A torch.profiler run of two GPUs with NCCL 2.28 (ncclDevKernel_*, where
// HTA names no straggler).
TEST(RunHtaCrossCheck, OverlapAndTimeBreakdownOnATwoGpuNcclRun) {
  const auto run_dir = test::dataDir("nccl-2gpu-torch") / "run";
  const HtaReport hta = htaReport({run_dir.string()});
  SKIP_WITHOUT_HTA(hta);
  EXPECT_EQ(hta.json["ranks"], nlohmann::json::array({0, 1}));
  expectHtasFigures(analyzeRun(loadRun(traceFilesIn(run_dir))), hta.json);
}

}  // namespace
}  // namespace fuselab
