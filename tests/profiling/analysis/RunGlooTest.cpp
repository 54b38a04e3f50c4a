// Genuine multi-rank traces: make_gloo_run.py starts two CPU processes that
// join a Gloo process group and all-reduce under torch.profiler; rank 1
// sleeps before each all-reduce (the known straggler), and copies of the run
// shift rank 1's clock by +/-50 ms (another host's clock).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "profiling/analysis/expectations/ExpectationsRun.h"
#include "profiling/analysis/run/RunAnalysis.h"
#include "profiling/analysis/run/RunCriticalPath.h"
#include "profiling/analysis/run/RunStreaming.h"
#include "profiling/trace/RunLoader.h"
#include "tests/support/PresetExpectations.h"
#include "tests/support/RunPython.h"
#include "tests/support/SameCriticalPath.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

constexpr int kNoGlooExit = 3;  // make_gloo_run.py: torch.distributed / Gloo missing
constexpr int64_t kDelayNs = 60'000'000;
constexpr int64_t kShiftNs = 50'000'000;

class GlooRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // ctest runs each test in its own process, maybe two at once: a folder each.
    dir_ = new std::filesystem::path(test::scratchDir("GlooRun-" + std::to_string(::getpid())));
    result_ = new test::PythonResult(test::runPython(
        "tests/profiling/analysis/make_gloo_run.py",
        {dir_->string(), "--delay-ms", std::to_string(kDelayNs / 1'000'000), "--shift-ms",
         std::to_string(kShiftNs / 1'000'000)},
        /*with_stderr=*/true));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove(test::scratchDir(dir_->filename().string()));  // empties it, then removes it
    delete dir_;
    delete result_;
  }
  void SetUp() override {
    if (result_->exit_code == kNoGlooExit)
      GTEST_SKIP() << "torch.distributed with Gloo is not available to " << test::pythonExe() << ":\n"
                   << result_->output;
    ASSERT_EQ(result_->exit_code, 0) << "make_gloo_run.py failed:\n" << result_->output;
  }
  static fuselab::Run load(const char* sub) { return loadRun(traceFilesIn(*dir_ / sub)); }
  // The all-reduces of the loop (the run also has the barrier before it).
  static std::vector<const CollectiveStats*> allReduces(const RunAnalysis& a) {
    std::vector<const CollectiveStats*> out;
    for (const CollectiveStats& s : a.collectives)
      if (s.name == "all_reduce") out.push_back(&s);
    return out;
  }

  static std::filesystem::path* dir_;
  static test::PythonResult* result_;
};
std::filesystem::path* GlooRun::dir_ = nullptr;
test::PythonResult* GlooRun::result_ = nullptr;

TEST_F(GlooRun, TracesCarryDistributedInfoAndGlooOps) {
  const fuselab::Run run = load("run");
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(run.backend, "gloo");
  EXPECT_EQ(run.world_size, 2);
  for (const RankTrace& r : run.ranks) {
    EXPECT_TRUE(r.info.present);
    EXPECT_EQ(r.info.rank, r.rank);
    EXPECT_EQ(r.info.group_sizes.at("0"), 2);
    const auto found = findCollectives(r.trace);
    size_t all_reduce = 0;
    for (const CollectiveEvent& c : found) {
      EXPECT_FALSE(c.on_gpu);
      EXPECT_EQ(c.group, "gloo");
      if (c.name == "all_reduce") {
        ++all_reduce;
        EXPECT_EQ(c.in_bytes, (1 << 16) * 4);  // 65536 floats, from the gloo:all_reduce op's Input Dims
      }
    }
    EXPECT_EQ(all_reduce, 4u);
  }
}

TEST_F(GlooRun, TheSleepingRankIsTheStragglerAndItsIdleGapIsNamed) {
  const fuselab::Run run = load("run");
  const RunAnalysis a = analyzeRun(run);
  ASSERT_FALSE(a.stragglers.empty());
  EXPECT_EQ(a.stragglers[0].rank, 1);
  size_t late1 = 0;
  for (const CollectiveStats* s : allReduces(a)) {
    EXPECT_EQ(s->group_size, 2);
    ASSERT_TRUE(s->busbw_gbps.has_value());
    EXPECT_DOUBLE_EQ(*s->busbw_gbps, *s->algbw_gbps * 2 * (2 - 1) / 2);
    EXPECT_EQ(s->wait_ns + s->transfer_ns, s->end_ns - s->start_ns);
    if (s->late_rank != 1) continue;
    ++late1;
    // Rank 1 slept (nothing profiled) between its last op and the all-reduce.
    EXPECT_EQ(s->late_rank_before.kind, ArrivalCauseKind::Idle) << s->late_rank_before.name;
    EXPECT_GE(s->late_rank_before.idle_ns, kDelayNs);
    EXPECT_EQ(s->late_rank_before.name, "aten::div");
  }
  EXPECT_GE(late1, 3u) << "rank 1 slept before each of its 4 all-reduces";
  EXPECT_GE(a.ranks[0].wait_ns, a.ranks[1].wait_ns);
}

// The true skew: both processes ran on one host, so their clocks agree and
// the collectives' end differences are all the alignment error there is.
int64_t trueSkewNs(const RunAnalysis& same_clock) {
  int64_t skew = 0;
  for (const CollectiveStats& s : same_clock.collectives) {
    const int64_t d = s.arrivals[1].end_ns - s.arrivals[0].end_ns;
    skew = std::max(skew, std::abs(d));
  }
  return skew;
}

TEST_F(GlooRun, CollectiveEndsUndoAClockFiftyMillisecondsOffEitherWay) {
  const RunAnalysis same = analyzeRun(load("run"), {{}, AlignMethod::Epoch});
  const int64_t skew = trueSkewNs(same);
  EXPECT_LT(skew, kShiftNs / 2);  // else the run cannot tell a 50 ms clock error apart
  for (const auto& [sub, shift] : {std::pair{"shift-plus", kShiftNs}, std::pair{"shift-minus", -kShiftNs}}) {
    const fuselab::Run run = load(sub);
    const RunAnalysis epoch = analyzeRun(run, {{}, AlignMethod::Epoch});
    EXPECT_GE(epoch.alignment.residual_skew_ns, kShiftNs - skew) << sub;
    const RunAnalysis a = analyzeRun(run);
    EXPECT_EQ(a.alignment.method, AlignMethod::Collectives) << sub;
    EXPECT_EQ(a.alignment.offsets_ns[0], 0) << sub;
    // Rank 1's clock reads `shift` ahead: its offset undoes it to within the true skew.
    EXPECT_LE(std::abs(a.alignment.offsets_ns[1] + shift), skew) << sub << ": offset " << a.alignment.offsets_ns[1];
    // The residual is the median aligned spread of the collectives' ends:
    // each is a raw end difference (within the true skew) plus the offset's
    // error (within it too), so within twice the true skew. A run whose
    // differences lean one way had 4.3 ms against a true skew of 3.5 ms.
    EXPECT_LE(a.alignment.residual_skew_ns, 2 * skew) << sub;
    EXPECT_EQ(a.stragglers.at(0).rank, 1) << sub;
  }
}

// The fastest step: the one a busy machine disturbed least.
int64_t fastestWallNs(const CriticalPathAnalysis& cp) {
  int64_t fastest = 0;
  for (const StepPath& p : cp.steps)
    if (fastest == 0 || p.wall_ns < fastest) fastest = p.wall_ns;
  return fastest;
}

// The ranks' parts of the graph (CPU collectives on worker threads here)
// join into the path of the run merged.
TEST_F(GlooRun, ItsRanksPathPartsJoinIntoTheMergedRunsPath) {
  const fuselab::Run run = load("run");
  const RunAnalysis a = analyzeRun(run);
  const CriticalPathAnalysis built = analyzeRunCriticalPath(a, mergeRun(run, a.alignment.offsets_ns));
  RunStreamOptions o;
  o.keep = KeepEvents::Always;
  o.critical_path_parts = true;
  const StreamedRun streamed = streamRun(traceFilesIn(*dir_ / "run"), o);
  const MergedRun merged = mergeRun(*streamed.run, streamed.analysis.alignment.offsets_ns);
  test::expectSameCriticalPath(analyzeRunCriticalPath(streamed.analysis, merged, {}, streamed.path_parts), built);
}

// Tutorial step 17 on a genuine run: each step's critical path runs through
// the late rank's sleep (its step's own time, outside recorded ops), not
// through rank 0's long all-reduce; and halving that time predicts what a
// run with the delay halved measures.
TEST_F(GlooRun, ThePathRunsThroughTheLateRankAndPredictsAHalvedDelay) {
  const fuselab::Run run = load("run");
  const RunAnalysis a = analyzeRun(run);
  const std::vector<Expectation> step17 = test::presetExpectations(17);
  const std::vector<ExpectationResult> results = evaluateRunExpectations(run, a, step17);
  for (size_t i = 0; i < results.size(); ++i)
    EXPECT_TRUE(results[i].met()) << step17[i].text << ": " << results[i].measured << "\n" << results[i].explanation;

  const MergedRun merged = mergeRun(run, a.alignment.offsets_ns);
  const CriticalPathAnalysis cp = analyzeRunCriticalPath(a, merged);
  const WhatIf* sleep = nullptr;
  for (const WhatIf& w : cp.what_if)
    if (w.rank == 1 && w.name == "ProfilerStep#* own time") sleep = &w;
  ASSERT_TRUE(sleep) << "rank 1's own step time is among the what-ifs";
  EXPECT_EQ(&cp.what_if.front(), sleep) << "and it buys the most";
  const int64_t predicted_gain = sleep->steps_ns_before - sleep->steps_ns_after;
  EXPECT_GE(predicted_gain, kDelayNs * int64_t(cp.steps.size()) / 2 * 9 / 10);

  // The same run with rank 1 sleeping half as long.
  const std::filesystem::path half_dir = test::scratchDir("GlooRunHalf-" + std::to_string(::getpid()));
  const test::PythonResult half = test::runPython(
      "tests/profiling/analysis/make_gloo_run.py",
      {half_dir.string(), "--delay-ms", std::to_string(kDelayNs / 2'000'000), "--shift-ms", "0"}, true);
  ASSERT_EQ(half.exit_code, 0) << half.output;
  const fuselab::Run half_run = loadRun(traceFilesIn(half_dir / "run"));
  const RunAnalysis half_a = analyzeRun(half_run);
  const CriticalPathAnalysis half_cp = analyzeRunCriticalPath(half_a, mergeRun(half_run, half_a.alignment.offsets_ns));
  std::filesystem::remove(test::scratchDir(half_dir.filename().string()));
  ASSERT_EQ(half_cp.steps.size(), cp.steps.size());
  // Per step, by the fastest step of each run: steps slowed by a busy
  // machine (ctest runs other tests with their own processes beside this
  // one) in either run do not count. Two runs of two processes each: their
  // own ops vary by some milliseconds, and more under load; the tolerance
  // still fails the model this test caught (predicted 66 ms, measured 140).
  const double predicted_step_gain = double(predicted_gain) / double(cp.steps.size());
  const double measured_step_gain = double(fastestWallNs(cp) - fastestWallNs(half_cp));
  EXPECT_NEAR(measured_step_gain, predicted_step_gain, 0.35 * predicted_step_gain)
      << "predicted " << sleep->steps_ns_before << " -> " << sleep->steps_ns_after << " ns in all steps; fastest steps "
      << fastestWallNs(cp) << " -> " << fastestWallNs(half_cp) << " ns";
}

}  // namespace
}  // namespace fuselab
