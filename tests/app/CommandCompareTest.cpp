// `fuselab compare` through the real command line: A B, several traces per
// side with --vs, --json on stdout alone with the noise fields, a fixture
// whose GEMM kernels were renamed, and bad input.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/app/CliRun.h"
#include "tests/support/FixtureJson.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

using test::CliRun;
using test::runFuselab;

const std::string kMlp = test::fixture("mlp_eager.json.gz").string();
const std::string kLinear = test::fixture("linear_eager.json.gz").string();

const nlohmann::json& row(const nlohmann::json& j, const std::string& prefix) {
  for (const auto& r : j["rows"])
    if (r["metric"].get<std::string>().rfind(prefix, 0) == 0) return r;
  throw std::runtime_error("no row " + prefix);
}

TEST(CommandCompare, TwoTracesGiveTheNoiseTable) {
  CliRun r = runFuselab({"compare", kMlp, kLinear});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* needle : {"noise rule: changed when the 95% percentile bootstrap interval", "A median [min - max]",
                             "fewer (beyond noise)", "verdict: ", "aten::mm [[8192,768],[768,3072]] #1"})
    EXPECT_NE(r.out.find(needle), std::string::npos) << needle << "\n" << r.out;
}

TEST(CommandCompare, SeveralTracesPerSideAsJson) {
  CliRun r = runFuselab({"compare", kMlp, kMlp, "--vs", kLinear, kLinear, kLinear, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);  // stdout is the document alone
  EXPECT_EQ(j["format_version"], 2);
  EXPECT_EQ(j["a"]["files"].size(), 2u);
  EXPECT_EQ(j["a"]["traces"], 2);
  EXPECT_EQ(j["a"]["samples"], 6);  // 3 recorded steps each
  EXPECT_EQ(j["b"]["traces"], 3);
  EXPECT_EQ(j["b"]["samples"], 9);
  EXPECT_NE(j["rule"].get<std::string>().find("bootstrap"), std::string::npos);
  EXPECT_EQ(j["rule_parameters"]["resamples"], 2000);
  EXPECT_EQ(j["verdict"]["text"].get<std::string>().empty(), false);

  const auto& kernels = row(j, "kernels / step");
  EXPECT_EQ(kernels["a_stats"]["n"], 6);
  EXPECT_EQ(kernels["a_stats"]["median"], 5.0);
  EXPECT_EQ(kernels["b_stats"]["median"], 1.0);
  EXPECT_EQ(kernels["change"]["outcome"], "lower");
  EXPECT_EQ(kernels["change"]["label"], "fewer (beyond noise)");
  const auto& busy = row(j, "GPU busy");
  EXPECT_LE(busy["a_stats"]["min"].get<double>(), busy["a_stats"]["median"].get<double>());
  EXPECT_GE(busy["a_stats"]["max"].get<double>(), busy["a_stats"]["median"].get<double>());
  EXPECT_TRUE(busy["change"]["beyond_noise"].get<bool>());
  for (const auto& k : j["kernels"]) {
    EXPECT_TRUE(k["slot"].contains("op"));
    EXPECT_TRUE(k["change"].contains("outcome"));
  }
}

TEST(CommandCompare, RenamedGemmKernelsAreMatchedInAnEditedFixture) {
  nlohmann::json doc = nlohmann::json::parse(test::gunzipFile(kMlp));
  int renamed = 0;
  for (auto& ev : doc["traceEvents"])
    if (ev.value("cat", "") == "kernel" && ev.value("name", "").rfind("nvjet_", 0) == 0) {
      ev["name"] = "sm90_xmma_gemm_renamed_" + ev["name"].get<std::string>().substr(6);
      ++renamed;
    }
  ASSERT_EQ(renamed, 9);  // three GEMMs in each of three steps
  const auto path = test::scratchDir("CommandCompare.Renamed") / "mlp_renamed.json";
  std::ofstream(path) << doc.dump();

  CliRun r = runFuselab({"compare", kMlp, path.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  int gemms = 0;
  for (const auto& k : j["kernels"]) {
    if (k["category"] != "kernel") continue;
    EXPECT_EQ(k["a_per_step"], 1.0) << k["label"];  // every slot found on both sides
    EXPECT_EQ(k["b_per_step"], 1.0) << k["label"];
    if (k["renamed"].get<bool>()) {
      ++gemms;
      EXPECT_EQ(k["slot"]["op"], "aten::mm");
      // The durations were not touched: same median, same spread.
      EXPECT_EQ(k["change"]["outcome"], "within_noise");
      EXPECT_EQ(k["change"]["median_delta"], 0.0);
      EXPECT_EQ(k["b_name"], "sm90_xmma_gemm_renamed_" + k["a_name"].get<std::string>().substr(6));
    }
  }
  EXPECT_EQ(gemms, 3);
  EXPECT_EQ(j["verdict"]["changed"], false);
}

TEST(CommandCompare, BadArguments) {
  CliRun r = runFuselab({"compare", kMlp});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give two traces"), std::string::npos) << r.err;
  r = runFuselab({"compare", kMlp, kLinear, kMlp});
  EXPECT_EQ(r.exit_code, 2);
  const auto bad = test::scratchDir("CommandCompare.Bad") / "bad.json";
  std::ofstream(bad) << "{\"traceEvents\": [";
  r = runFuselab({"compare", kMlp, "--vs", bad.string(), "--json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("cannot read"), std::string::npos) << r.err;
}

// --repeat needs traces fuselab captured (it re-runs their workload); the
// fixtures come from torch.profiler, so they are refused before any capture.
TEST(CommandCompare, RepeatNeedsAFuselabCapture) {
  CliRun r = runFuselab({"compare", kMlp, kLinear, "--repeat", "2", "--json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("was not captured by fuselab"), std::string::npos) << r.err;
  r = runFuselab({"compare", kMlp, kLinear, "--repeat", "101"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--repeat must be from 0 to 100"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace fuselab
