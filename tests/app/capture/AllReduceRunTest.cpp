// The allreduce workload on two Gloo ranks (CPU): one all-reduce per step,
// sized as asked, matched across the ranks; a sweep point over ranks gives
// its bus bandwidth. (On NCCL the points also name the algorithm and
// protocol from the ranks' side files: that needs two GPUs.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "app/cli/Cli.h"
#include "profiling/analysis/run/RunAnalysis.h"
#include "profiling/trace/RunLoader.h"
#include "tests/app/CliRun.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

namespace fs = std::filesystem;

TEST(AllReduceRun, OneSizedAllReducePerStepMatchedAcrossTwoGlooRanks) {
  const fs::path dir = test::scratchDir("AllReduceRun");
  test::CliRun r = test::runFuselab({"capture", "--workload", "allreduce", "--ranks", "2", "--device", "cpu",
                                     "--batch", "32", "--dim", "256", "--warmup", "1", "--steps", "3", "--out",
                                     (dir / "run").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("one all-reduce (sum) of [32, 1, 256] fp32 on cpu, 32768 bytes"), std::string::npos) << r.out;
  const RunAnalysis a = analyzeRun(loadRun(expandRunPaths({dir / "run"})));
  ASSERT_EQ(a.collectives.size(), 3u);
  for (const CollectiveStats& s : a.collectives) {
    EXPECT_EQ(s.kind, CollectiveKind::AllReduce);
    EXPECT_EQ(s.arrivals.size(), 2u);
    EXPECT_EQ(s.bytes, 32 * 256 * 4);
  }

  const fs::path csv = dir / "sweep.csv";
  r = test::runFuselab({"sweep", "--workload", "allreduce", "--ranks", "2", "--tokens", "64",  // its one variant by default
                        "--device", "cpu", "--dim", "256", "--csv", csv.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::ifstream in(csv);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"eager, 2 ranks\",allreduce,64,ok,"), std::string::npos) << text;
  EXPECT_NE(text.find("busbw "), std::string::npos) << text;
}

}  // namespace
}  // namespace fuselab
