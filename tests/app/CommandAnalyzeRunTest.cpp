// `fuselab analyze` on a run (a folder, or several files): the JSON fields
// other tools read, --align, and bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/app/CliRun.h"
#include "tests/support/RankFiles.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

using test::CliRun;
using test::runFuselab;

const std::string kRunDir = test::multirankFixtureDir().string();

TEST(CommandAnalyzeRun, JsonHasTheDocumentedFields) {
  CliRun r = runFuselab({"analyze", kRunDir, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);  // stdout is JSON alone
  EXPECT_EQ(j["run"]["world_size"], 128);
  EXPECT_EQ(j["run"]["missing_ranks"].size(), 126u);
  ASSERT_EQ(j["ranks"].size(), 2u);
  for (const auto& rank : j["ranks"])
    for (const char* key : {"rank", "file", "kernels", "utilization", "comm_ns", "wait_ns", "overlap_fraction"})
      EXPECT_TRUE(rank.contains(key)) << key;
  EXPECT_EQ(j["ranks"][1]["kernels"], 1104);
  EXPECT_EQ(j["alignment"]["method"], "collectives");
  EXPECT_EQ(j["alignment"]["offsets_ns"]["0"], 0);
  EXPECT_LT(std::abs(j["alignment"]["offsets_ns"]["1"].get<int64_t>()), 100'000);
  EXPECT_TRUE(j["alignment"]["residual_skew_ns"].is_number_integer());
  ASSERT_EQ(j["collectives"].size(), 4u);
  for (const auto& c : j["collectives"]) {
    for (const char* key : {"name", "group", "index", "bytes", "start_ns", "end_ns", "wait_ns", "transfer_ns",
                            "busbw_gbps", "late_rank", "late_rank_before"})
      EXPECT_TRUE(c.contains(key)) << key;
    EXPECT_LE(c["start_ns"].get<int64_t>(), c["end_ns"].get<int64_t>());
    EXPECT_TRUE(c["late_rank_before"]["kind"].is_string());
  }
  ASSERT_EQ(j["stragglers"].size(), 1u);
  EXPECT_EQ(j["stragglers"][0]["rank"], 1);
  EXPECT_EQ(j["stragglers"][0]["late_count"], 4);
  EXPECT_GT(j["stragglers"][0]["wait_caused_ns"].get<int64_t>(), 0);
}

TEST(CommandAnalyzeRun, TheCriticalPathRunsThroughTheLateRanksWork) {
  // Rank 1 slept 3 ms inside its forward before every all-reduce.
  CliRun r = runFuselab({"analyze", test::ncclFuselabFixtureDir().string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json cp = nlohmann::json::parse(r.out)["critical_path"];
  ASSERT_EQ(cp["steps"].size(), 8u);
  for (const auto& step : cp["steps"]) {
    int64_t rank1 = 0, total = 0, slept = 0;
    for (const auto& br : step["by_rank"]) {
      total += br["ns"].get<int64_t>();
      if (br["rank"] == 1) rank1 = br["ns"].get<int64_t>();
    }
    for (const auto& seg : step["segments"])
      if (seg["rank"] == 1 && seg["name"] == "tp_mlp_fwd") slept += seg["dur_ns"].get<int64_t>();
    EXPECT_EQ(total, step["wall_ns"].get<int64_t>());
    EXPECT_GT(rank1, total / 2) << step["name"];
    EXPECT_GT(slept, 2'500'000) << step["name"] << ": the sleep is on the path";
  }
}

TEST(CommandAnalyzeRun, SeveralFilesAreOneRunAsTheirFolderIs) {
  const auto dir = test::multirankFixtureDir();
  CliRun files = runFuselab({"analyze", (dir / "rank-0.json.gz").string(), (dir / "rank-1.json.gz").string(), "--json"});
  CliRun folder = runFuselab({"analyze", dir.string(), "--json"});
  ASSERT_EQ(files.exit_code, 0) << files.err;
  EXPECT_EQ(nlohmann::json::parse(files.out)["collectives"], nlohmann::json::parse(folder.out)["collectives"]);
}

TEST(CommandAnalyzeRun, AlignOption) {
  CliRun epoch = runFuselab({"analyze", kRunDir, "--json", "--align", "epoch"});
  ASSERT_EQ(epoch.exit_code, 0) << epoch.err;
  const nlohmann::json j = nlohmann::json::parse(epoch.out);
  EXPECT_EQ(j["alignment"]["method"], "epoch");
  EXPECT_EQ(j["alignment"]["offsets_ns"]["1"], 0);
  CliRun bad = runFuselab({"analyze", kRunDir, "--align", "ntp"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("none, epoch or collectives"), std::string::npos) << bad.err;
  CliRun single = runFuselab({"analyze", test::fixture("mlp_eager.json.gz").string(), "--align", "epoch"});
  EXPECT_EQ(single.exit_code, 1);
  EXPECT_NE(single.err.find("--align applies to runs"), std::string::npos) << single.err;
}

TEST(CommandAnalyzeRun, TextSummary) {
  CliRun r = runFuselab({"analyze", kRunDir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* needle : {"Run: 2 rank(s) of world size 128", "Alignment: collectives", "Ranks:", "Stragglers:",
                             "rank 1: last to arrive 4 time(s)"})
    EXPECT_NE(r.out.find(needle), std::string::npos) << needle << "\n" << r.out;
}

TEST(CommandAnalyzeRun, CompareTakesRunsMerged) {
  CliRun r = runFuselab({"compare", kRunDir, kRunDir, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("kernels"));
  EXPECT_FALSE(j["kernels"].empty());
}

TEST(CommandAnalyzeRun, BadInputGetsClearMessages) {
  const auto empty = test::scratchDir("AnalyzeRunEmpty");
  CliRun none = runFuselab({"analyze", empty.string()});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no trace files"), std::string::npos) << none.err;

  const auto mixed = test::scratchDir("AnalyzeRunUnreadable");
  test::writeRankFile(mixed, "rank-0.json", test::distributedInfo(0, 2));
  test::writeText(mixed, "rank-1.json", "{\"traceEvents\": [");
  CliRun partial = runFuselab({"analyze", mixed.string(), "--json"});
  EXPECT_EQ(partial.exit_code, 0) << partial.err;
  EXPECT_NE(partial.err.find("rank-1.json"), std::string::npos) << partial.err;
  EXPECT_EQ(nlohmann::json::parse(partial.out)["run"]["missing_ranks"], nlohmann::json::array({1}));

  const auto dup = test::scratchDir("AnalyzeRunDuplicates");
  auto a = test::writeRankFile(dup, "a.json", test::distributedInfo(0, 2));
  auto b = test::writeRankFile(dup, "b.json", test::distributedInfo(0, 2));
  CliRun twice = runFuselab({"analyze", a.string(), b.string()});
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.err.find("a.json and b.json are both rank 0"), std::string::npos) << twice.err;
  EXPECT_TRUE(twice.out.empty());

  auto other = test::writeRankFile(dup, "other.json", test::distributedInfo(1, 8));
  CliRun job = runFuselab({"analyze", a.string(), other.string()});
  EXPECT_EQ(job.exit_code, 1);
  EXPECT_NE(job.err.find("other.json is from another job"), std::string::npos) << job.err;
}

}  // namespace
}  // namespace fuselab
