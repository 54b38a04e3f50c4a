// `fuselab analyze` through the real command line: text and JSON output on a
// fixture, the threshold option, and bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/Settings.h"
#include "tests/app/CliRun.h"
#include "tests/app/ScopedConfigHome.h"
#include "tests/support/BuildPaths.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

using test::CliRun;
using test::runFuselab;

const std::string kMlp = test::fixture("mlp_eager.json.gz").string();

TEST(CommandAnalyze, TextSummary) {
  CliRun r = runFuselab({"analyze", kMlp});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* needle : {"ProfilerStep#2", "ProfilerStep#4", "GPU utilization:", "host wait", "kernel wait",
                             "Verdict:", "Top GPU ops", "aten::linear", "Diagnostics:"})
    EXPECT_NE(r.out.find(needle), std::string::npos) << needle << "\n" << r.out;
}

TEST(CommandAnalyze, JsonHasTheDocumentedFields) {
  CliRun r = runFuselab({"analyze", kMlp, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format_version"], 1);
  ASSERT_EQ(j["steps"].size(), 3u);
  for (const auto& s : j["steps"]) EXPECT_EQ(s["kernels"], 5);
  EXPECT_EQ(j["counts"]["kernels"], 15);
  EXPECT_EQ(j["options"]["gap_threshold_ns"], 30000);
  for (const char* key : {"trace", "scope", "utilization", "idle", "launch_delay", "kernels", "cpu_ops", "verdict",
                          "diagnostics", "longest_gaps"})
    EXPECT_TRUE(j.contains(key)) << key;
  const auto& idle = j["idle"];
  EXPECT_EQ(idle["total_ns"].get<int64_t>(), idle["host_wait_ns"].get<int64_t>() +
                                                  idle["kernel_wait_ns"].get<int64_t>() +
                                                  idle["other_ns"].get<int64_t>());
  EXPECT_TRUE(j["verdict"]["kind"].is_string());
  EXPECT_FALSE(j["verdict"]["explanation"].get<std::string>().empty());
  // A torch.profiler trace timed nothing without its profiler.
  ASSERT_TRUE(j.contains("observer_effect"));
  EXPECT_TRUE(j["observer_effect"].is_null());
}

TEST(CommandAnalyze, ReportsEachStepsCriticalPathAndWhatFasterOpsBuy) {
  CliRun text = runFuselab({"analyze", kMlp});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Critical path: ProfilerStep#"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("were 2x faster: steps -"), std::string::npos) << text.out;

  CliRun r = runFuselab({"analyze", kMlp, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json cp = nlohmann::json::parse(r.out)["critical_path"];
  ASSERT_EQ(cp["steps"].size(), 3u);
  for (const auto& step : cp["steps"]) {
    int64_t total = 0, by_kind = 0;
    for (const auto& seg : step["segments"]) {
      for (const char* key : {"kind", "rank", "track", "name", "start_ns", "dur_ns"})
        EXPECT_TRUE(seg.contains(key)) << key;
      total += seg["dur_ns"].get<int64_t>();
    }
    for (const auto& [kind, ns] : step["by_kind"].items()) by_kind += ns.get<int64_t>();
    EXPECT_EQ(total, step["wall_ns"].get<int64_t>()) << "the path tiles the step";
    EXPECT_EQ(by_kind, total);
    EXPECT_EQ(step["by_rank"].size(), 1u);
  }
  // Eager small ops: the CPU sets the step time (the tutorial's lesson).
  const auto& kinds = cp["steps"][1]["by_kind"];
  EXPECT_GT(kinds["cpu"].get<int64_t>() + kinds["launch"].get<int64_t>(), 10 * kinds["gpu"].get<int64_t>());
  ASSERT_FALSE(cp["what_if"].empty());
  for (const auto& w : cp["what_if"]) {
    EXPECT_LE(w["steps_ns_after"].get<int64_t>(), w["steps_ns_before"].get<int64_t>());
    EXPECT_GT(w["on_path_ns"].get<int64_t>(), 0);
  }
}

TEST(CommandAnalyze, ThresholdMovesGapsBetweenKernelWaitAndOther) {
  auto idleOf = [](const std::string& threshold) {
    CliRun r = runFuselab({"analyze", kMlp, "--json", "--gap-threshold-us", threshold});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out)["idle"];
  };
  nlohmann::json zero = idleOf("0"), wide = idleOf("30");
  EXPECT_EQ(zero["kernel_wait_ns"], 0);
  EXPECT_GT(wide["kernel_wait_ns"].get<int64_t>(), 0);
  EXPECT_EQ(zero["total_ns"], wide["total_ns"]);
  EXPECT_EQ(zero["host_wait_ns"], wide["host_wait_ns"]);  // host wait does not depend on the threshold
}

// Without --gap-threshold-us, the threshold saved by the window: the CLI
// and the window say the same of one file.
TEST(CommandAnalyze, TheSavedThresholdAppliesUnlessTheFlagIsGiven) {
  test::ScopedConfigHome home("CommandAnalyze.SavedThreshold");
  CliRun r = runFuselab({"analyze", kMlp, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["options"]["gap_threshold_ns"], 30000);  // nothing saved: the default
  Settings saved;
  saved.gap_threshold_ns = 5000;
  saveSettings(saved, home.settingsFile());
  r = runFuselab({"analyze", kMlp, "--json"});
  EXPECT_EQ(nlohmann::json::parse(r.out)["options"]["gap_threshold_ns"], 5000);
  r = runFuselab({"analyze", kMlp, "--json", "--gap-threshold-us", "30"});
  EXPECT_EQ(nlohmann::json::parse(r.out)["options"]["gap_threshold_ns"], 30000);
}

TEST(CommandAnalyze, InvalidThresholdNamesTheAllowedRange) {
  for (const char* bad : {"abc", "-1", "1000001", "nan", ""}) {
    CliRun r = runFuselab({"analyze", kMlp, "--gap-threshold-us", bad});
    EXPECT_EQ(r.exit_code, 1) << bad;
    EXPECT_NE(r.err.find("from 0 to 1000000"), std::string::npos) << bad << ": " << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

TEST(CommandAnalyze, MissingFileIsAnErrorNotACrash) {
  CliRun r = runFuselab({"analyze", "/nonexistent/trace.json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/nonexistent/trace.json"), std::string::npos) << r.err;
}

TEST(CommandAnalyze, MalformedFileIsAnErrorWithItsName) {
  // A fixed folder, not test::scratchDir (see HtaCrossCheckTest.cpp); the
  // file is rewritten each run.
  const auto dir = std::filesystem::path(fuselab::build_paths::binaryDir()) / "test-scratch" / "CommandAnalyze";
  std::filesystem::create_directories(dir);
  const auto path = dir / "broken.json";
  std::ofstream(path, std::ios::trunc) << R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": )";
  CliRun r = runFuselab({"analyze", path.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("broken.json"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace fuselab
