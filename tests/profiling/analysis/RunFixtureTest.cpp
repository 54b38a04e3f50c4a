// The run analysis on the HTA fixture: two real ranks of a 128-rank NCCL job
// (sampled, so some collectives appear on one rank only).
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>

#include "profiling/analysis/run/RunAnalysis.h"
#include "profiling/trace/RunLoader.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

class RunFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { run_ = new fuselab::Run(loadRun(traceFilesIn(test::multirankFixtureDir()))); }
  static void TearDownTestSuite() { delete run_; }
  static fuselab::Run* run_;
};
fuselab::Run* RunFixture::run_ = nullptr;

TEST_F(RunFixture, NcclKernelsAreNamedByTheirCpuSide) {
  const RunAnalysis a = analyzeRun(*run_);
  ASSERT_EQ(a.collectives_per_rank.size(), 2u);
  for (const auto& rank : a.collectives_per_rank) {
    // Every NCCL kernel of these files is ncclKernel_SendRecv_*; the
    // nccl:* annotations around their launches say what they were.
    std::map<std::string, int> names;
    for (const CollectiveEvent& c : rank) {
      ++names[c.name + " " + c.group];
      EXPECT_TRUE(c.launch.has_value());
      EXPECT_GT(c.in_bytes, 0);
    }
    EXPECT_EQ(names, (std::map<std::string, int>{
                         {"all_to_all stream 84", 4}, {"all_reduce stream 84", 4}, {"all_gather stream 203", 2}}));
  }
}

TEST_F(RunFixture, CollectiveEndsAgreeWithTheSharedEpoch) {
  const RunAnalysis a = analyzeRun(*run_);
  EXPECT_EQ(a.alignment.method, AlignMethod::Collectives);
  // The files share the Kineto epoch; collective ends confirm it to within
  // a fraction of a millisecond. The sampled files pair only four
  // collectives whose ends agree; the other pairs by order end 60-250 ms apart.
  EXPECT_EQ(a.alignment.offsets_ns[0], 0);
  EXPECT_LT(std::abs(a.alignment.offsets_ns[1]), 100'000);
  EXPECT_LT(a.alignment.residual_skew_ns, 500'000);
  EXPECT_EQ(a.alignment.collectives_used, 4u);
  EXPECT_EQ(a.alignment.mismatched, 8u);
  ASSERT_EQ(a.collectives.size(), 4u);
  std::multiset<std::string> kept;
  for (const CollectiveStats& s : a.collectives) {
    kept.insert(s.name + " " + std::to_string(s.bytes));
    EXPECT_EQ(s.group_size, 128);  // the default group: the job's world size
    EXPECT_GE(s.wait_ns, 0);
    EXPECT_GT(s.transfer_ns, 0);
    EXPECT_TRUE(s.busbw_gbps.has_value());
  }
  // all-reduce of 19618307 and 5716654 floats; all-gather of 16 MiB per rank.
  EXPECT_EQ(kept, (std::multiset<std::string>{"all_reduce 78473228", "all_reduce 22866616",
                                              "all_gather 2147483648", "all_gather 2147483648"}));
  ASSERT_FALSE(a.stragglers.empty());
  EXPECT_EQ(a.stragglers[0].rank, 1);
}

TEST_F(RunFixture, EpochAlignmentKeepsEveryPairedCollective) {
  const RunAnalysis a = analyzeRun(*run_, {{}, AlignMethod::Epoch});
  EXPECT_EQ(a.alignment.offsets_ns, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(a.alignment.mismatched, 0u);
  EXPECT_EQ(a.collectives.size(), 8u);  // paired by order, right or not
}

}  // namespace
}  // namespace fuselab
