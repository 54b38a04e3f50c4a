#include "profiling/trace/RunLoader.h"

#include <gtest/gtest.h>

#include "tests/support/RankFiles.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

using test::distributedInfo;
using test::writeRankFile;

std::string loadError(const std::vector<std::filesystem::path>& files) {
  try {
    loadRun(files);
  } catch (const RunLoadError& e) {
    return e.what();
  }
  return "(loaded)";
}

TEST(RankFromFileName, SpellingsOfTheRank) {
  EXPECT_EQ(rankFromFileName("rank-3.json"), 3);
  EXPECT_EQ(rankFromFileName("rank_12.json.gz"), 12);
  EXPECT_EQ(rankFromFileName("job_rank3.pt.trace.json"), 3);
  EXPECT_EQ(rankFromFileName("trainer.Rank-7.json"), 7);
  EXPECT_EQ(rankFromFileName("rank0"), 0);
  EXPECT_EQ(rankFromFileName("frank_1.json"), std::nullopt);  // not a word of its own
  EXPECT_EQ(rankFromFileName("rank3a.json"), std::nullopt);
  EXPECT_EQ(rankFromFileName("ranks.json"), std::nullopt);
  EXPECT_EQ(rankFromFileName("trace.json"), std::nullopt);
}

TEST(DistributedInfo, ReadsKinetoFields) {
  DistributedInfo i = parseDistributedInfo(
      R"({"backend":"gloo","rank":1,"world_size":2,"pg_count":1,
          "pg_config":[{"pg_name":"0","pg_desc":"default_pg","pg_size":2,"ranks":[0,1]}]})");
  ASSERT_TRUE(i.present);
  EXPECT_EQ(i.rank, 1);
  EXPECT_EQ(i.world_size, 2);
  EXPECT_EQ(i.backend, "gloo");
  EXPECT_EQ(i.groups.at("0"), "[0,1]");
  EXPECT_EQ(i.group_sizes.at("0"), 2);
  EXPECT_FALSE(parseDistributedInfo("[1,2]").present);
  EXPECT_FALSE(parseDistributedInfo("{oops").present);
}

TEST(RunLoader, RankFromDistributedInfoElseTheFileName) {
  const auto dir = test::scratchDir("RunLoaderRanks");
  // distributedInfo wins over a misleading name.
  writeRankFile(dir, "rank-9.json", distributedInfo(1, 4));
  writeRankFile(dir, "worker_rank0.json", nullptr);
  writeRankFile(dir, "notes.txt", nullptr);  // not a trace file name: ignored
  fuselab::Run run = loadRun(traceFilesIn(dir));
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(run.ranks[0].rank, 0);
  EXPECT_EQ(std::filesystem::path(run.ranks[0].file).filename(), "worker_rank0.json");
  EXPECT_EQ(run.ranks[1].rank, 1);
  EXPECT_EQ(run.world_size, 4);
  EXPECT_EQ(run.backend, "nccl");
  EXPECT_EQ(run.missing_ranks, (std::vector<int>{2, 3}));
  EXPECT_TRUE(run.warnings.empty());
  EXPECT_EQ(run.indexOfRank(1), 1);
  EXPECT_EQ(run.indexOfRank(2), -1);
}

TEST(RunLoader, ALoneFileWithoutRankIsRankZero) {
  const auto dir = test::scratchDir("RunLoaderLone");
  fuselab::Run run = loadRun({writeRankFile(dir, "trace.json", nullptr)});
  ASSERT_EQ(run.ranks.size(), 1u);
  EXPECT_EQ(run.ranks[0].rank, 0);
  EXPECT_EQ(run.world_size, 1);
}

TEST(RunLoader, RefusesDuplicatedRanks) {
  const auto dir = test::scratchDir("RunLoaderDuplicates");
  auto a = writeRankFile(dir, "a.json", distributedInfo(1, 2));
  auto b = writeRankFile(dir, "b.json", distributedInfo(1, 2));
  EXPECT_EQ(loadError({a, b}), "a.json and b.json are both rank 1");
}

TEST(RunLoader, RefusesAFileWithoutRankAmongOthers) {
  const auto dir = test::scratchDir("RunLoaderNoRank");
  auto a = writeRankFile(dir, "rank-0.json", nullptr);
  auto b = writeRankFile(dir, "trace.json", nullptr);
  EXPECT_NE(loadError({a, b}).find("trace.json: cannot tell which rank it is"), std::string::npos);
}

TEST(RunLoader, RefusesTracesOfAnotherJobNamingTheOddFile) {
  const auto dir = test::scratchDir("RunLoaderOtherJob");
  auto r0 = writeRankFile(dir, "rank-0.json", distributedInfo(0, 4));
  auto r1 = writeRankFile(dir, "rank-1.json", distributedInfo(1, 4));
  auto odd_size = writeRankFile(dir, "rank-2.json", distributedInfo(2, 8));
  EXPECT_EQ(loadError({r0, r1, odd_size}),
            "rank-2.json is from another job: its world_size is 8 where rank-0.json and others say 4");
  auto odd_backend = writeRankFile(dir, "other-3.json", distributedInfo(3, 4, "gloo"));
  EXPECT_EQ(loadError({r0, r1, odd_backend}),
            "other-3.json is from another job: its backend is gloo where rank-0.json and others say nccl");
  nlohmann::json info = distributedInfo(2, 4);
  info["pg_config"][0]["ranks"] = {0, 1, 2, 5};
  auto odd_group = writeRankFile(dir, "rank-2b.json", info);
  EXPECT_EQ(loadError({r0, r1, odd_group}),
            "rank-2b.json is from another job: its process group '0' is [0,1,2,5] where rank-0.json and others "
            "say [0,1,2,3]");
}

TEST(RunLoader, SkipsAnUnreadableFileAndNamesIt) {
  const auto dir = test::scratchDir("RunLoaderUnreadable");
  writeRankFile(dir, "rank-0.json", distributedInfo(0, 3));
  test::writeText(dir, "rank-1.json", "{\"traceEvents\": [ {\"ph\": \"X\", ");
  writeRankFile(dir, "rank-2.json", distributedInfo(2, 3));
  fuselab::Run run = loadRun(traceFilesIn(dir));
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(run.missing_ranks, (std::vector<int>{1}));
  ASSERT_EQ(run.warnings.size(), 1u);
  EXPECT_NE(run.warnings[0].find("cannot read"), std::string::npos) << run.warnings[0];
  EXPECT_NE(run.warnings[0].find("rank-1.json"), std::string::npos) << run.warnings[0];
}

TEST(RunLoader, NothingReadableIsAnError) {
  const auto dir = test::scratchDir("RunLoaderNothing");
  auto bad = test::writeText(dir, "rank-0.json", "not json");
  const std::string message = loadError({bad, dir / "rank-1.json"});
  EXPECT_NE(message.find("none of the 2 file(s) could be read"), std::string::npos) << message;
  EXPECT_NE(message.find("rank-1.json"), std::string::npos) << message;
}

TEST(RunLoader, AFolderWithoutTracesIsAnError) {
  const auto dir = test::scratchDir("RunLoaderEmpty");
  test::writeText(dir, "README.md", "no traces here");
  try {
    traceFilesIn(dir);
    FAIL() << "no error";
  } catch (const RunLoadError& e) {
    EXPECT_NE(std::string(e.what()).find("no trace files"), std::string::npos) << e.what();
  }
  EXPECT_THROW(traceFilesIn(dir / "README.md"), RunLoadError);
  EXPECT_THROW(loadRun({}), RunLoadError);
}

TEST(RunLoader, ExpandsFoldersAndKeepsFiles) {
  const auto dir = test::scratchDir("RunLoaderExpand");
  auto a = writeRankFile(dir, "rank-0.json", distributedInfo(0, 2));
  const auto sub = dir / "more";
  std::filesystem::create_directories(sub);
  auto b = writeRankFile(sub, "rank-1.json", distributedInfo(1, 2));
  EXPECT_EQ(expandRunPaths({a, sub}), (std::vector<std::filesystem::path>{a, b}));
}

TEST(RunLoader, TheHtaFixtureIsTwoRanksOfA128RankNcclJob) {
  fuselab::Run run = loadRun(traceFilesIn(test::multirankFixtureDir()), RunLoadOptions{{}, 2});
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(run.ranks[0].rank, 0);
  EXPECT_EQ(run.ranks[1].rank, 1);
  EXPECT_EQ(run.world_size, 128);
  EXPECT_EQ(run.backend, "nccl");
  EXPECT_EQ(run.missing_ranks.size(), 126u);
  EXPECT_EQ(run.missing_ranks.front(), 2);
  EXPECT_GT(run.ranks[0].trace.eventCount(), 4000u);
}

}  // namespace
}  // namespace fuselab
