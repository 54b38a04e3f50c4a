// Cross-check with Holistic Trace Analysis (HTA): on every fixture (and on
// fuselab's own export of it) our kernel counts equal HTA's and our idle time
// per category (host wait / kernel wait / other) is within 1% of HTA's.
// tests/hta/hta_crosscheck.py reports HTA's figures; it is run with the
// project's Python (fuselab::build_paths::pythonExe(), tests/support/BuildPaths.h), where the test setup installs HTA.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/ChromeTraceExport.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/BuildPaths.h"
#include "tests/support/RunPython.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

constexpr int kHtaMissingExit = 3;  // hta_crosscheck.py: hta not importable

struct HtaResult {
  int exit_code = -1;
  std::string output;
  nlohmann::json report;
};

HtaResult runHta(const std::filesystem::path& trace, double threshold_us) {
  const test::PythonResult p =
      test::runPython("tests/hta/hta_crosscheck.py", {trace.string(), "--threshold-us", std::to_string(threshold_us)});
  HtaResult r{p.exit_code, p.output, {}};
  if (r.exit_code == 0) r.report = nlohmann::json::parse(r.output, nullptr, false);
  return r;
}

// HTA prints idle time rounded to 0.01 us per stream and category; allow
// that on top of the 1% relative tolerance.
void expectIdleClose(double ours_us, double hta_us, size_t streams, const std::string& what) {
  const double tolerance = std::max(0.01 * std::abs(hta_us), 0.01 * double(streams));
  EXPECT_NEAR(ours_us, hta_us, tolerance) << what << ": fuselab " << ours_us << " us, HTA " << hta_us << " us";
}

void crossCheck(const std::filesystem::path& trace_path, const std::string& label) {
  const AnalysisOptions options;  // 30 us kernel-wait threshold, HTA's default too
  HtaResult hta = runHta(trace_path, double(options.gap_threshold_ns) / 1000.0);
  if (hta.exit_code == kHtaMissingExit)
    GTEST_SKIP() << "hta not importable by " << test::pythonExe()
                 << " (scripts/setup --tests installs holistictraceanalysis)";
  ASSERT_EQ(hta.exit_code, 0) << "hta_crosscheck.py failed on " << trace_path << ":\n" << hta.output;
  ASSERT_FALSE(hta.report.is_discarded()) << "not JSON:\n" << hta.output;

  Trace trace = importChromeTrace(trace_path);
  TraceAnalysis a = analyzeTrace(trace, options);

  std::map<std::string, uint64_t> ours;
  for (const KernelRow& r : a.kernels)
    if (r.category == Category::Kernel) ours[r.name] += r.count;
  const auto theirs = hta.report["kernel_counts"].get<std::map<std::string, uint64_t>>();
  EXPECT_EQ(ours, theirs) << label << ": kernel counts per name";
  EXPECT_EQ(a.kernel_count, hta.report["gpu_op_counts"]["kernel"].get<uint64_t>()) << label;
  EXPECT_EQ(a.gpu_op_count, hta.report["gpu_op_counts"]["kernel"].get<uint64_t>() +
                                hta.report["gpu_op_counts"]["gpu_memcpy"].get<uint64_t>() +
                                hta.report["gpu_op_counts"]["gpu_memset"].get<uint64_t>())
      << label;

  const auto& idle = hta.report["idle_us"];
  const size_t streams = std::max<size_t>(1, hta.report["idle_us_per_stream"].size());
  expectIdleClose(a.idle.host_wait_ns / 1000.0, idle.value("host_wait", 0.0), streams, label + " host wait");
  expectIdleClose(a.idle.kernel_wait_ns / 1000.0, idle.value("kernel_wait", 0.0), streams, label + " kernel wait");
  expectIdleClose(a.idle.other_ns / 1000.0, idle.value("other", 0.0), streams, label + " other");

  for (const StreamIdle& s : a.idle_per_stream) {
    const std::string key = std::to_string(s.stream);
    ASSERT_TRUE(hta.report["idle_us_per_stream"].contains(key)) << label << ": HTA has no stream " << key;
    const auto& hs = hta.report["idle_us_per_stream"][key];
    const std::string at = label + " stream " + key;
    expectIdleClose(s.idle.host_wait_ns / 1000.0, hs.value("host_wait", 0.0), 1, at + " host wait");
    expectIdleClose(s.idle.kernel_wait_ns / 1000.0, hs.value("kernel_wait", 0.0), 1, at + " kernel wait");
    expectIdleClose(s.idle.other_ns / 1000.0, hs.value("other", 0.0), 1, at + " other");
  }
}

class HtaCrossCheck : public ::testing::TestWithParam<std::string> {};

TEST_P(HtaCrossCheck, Fixture) { crossCheck(test::fixture(GetParam()), GetParam()); }

TEST_P(HtaCrossCheck, OurExportOfTheFixture) {
  const std::string name = GetParam();
  // Not test::scratchDir: its remove_all resolves to libtorch's copy of
  // std::filesystem, which crashes on a non-empty folder. The export replaces
  // the file atomically, so a fixed folder is enough.
  const auto dir = std::filesystem::path(fuselab::build_paths::binaryDir()) / "test-scratch" / "HtaCrossCheck";
  std::filesystem::create_directories(dir);
  const auto exported = dir / ("exported_" + name);  // .json.gz: gzipped by the exporter
  exportChromeTrace(importChromeTrace(test::fixture(name)), exported);
  crossCheck(exported, "export of " + name);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, HtaCrossCheck,
                         ::testing::Values("linear_eager.json.gz", "mlp_eager.json.gz", "multistream_memcpy.json.gz"),
                         [](const auto& info) { return info.param.substr(0, info.param.find('.')); });

}  // namespace
}  // namespace fuselab
