#include "profiling/trace/RunMerge.h"

#include <gtest/gtest.h>

#include "profiling/trace/RunLoader.h"
#include "tests/support/RankTraceBuilder.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

TEST(RunMerge, EachRankOnTheAlignedAxisWithItsOwnLaunchLinks) {
  std::vector<RankTrace> ranks;
  // Both ranks use correlation 1 for their kernel: merged, they must not link across ranks.
  ranks.push_back(test::RankTraceBuilder().compute("gemm_a", 10'000, 5'000).build(0));
  ranks.push_back(test::RankTraceBuilder().compute("gemm_b", 20'000, 5'000).build(3));
  const fuselab::Run run = test::runOf(std::move(ranks));
  const MergedRun m = mergeRun(run, {0, -7'000});
  const Trace& t = *m.trace;
  EXPECT_EQ(t.eventCount(), 4u);
  ASSERT_EQ(m.track_of.size(), 2u);
  for (size_t p = 0; p < 2; ++p) {
    for (size_t src = 0; src < run.ranks[p].trace.tracks.size(); ++src) {
      const Track& a = run.ranks[p].trace.tracks[src];
      const Track& b = t.tracks[m.track_of[p][src]];
      EXPECT_EQ(b.rank, run.ranks[p].rank);
      EXPECT_EQ(b.kind, a.kind);
      ASSERT_EQ(b.size(), a.size());
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(b.start_ns[i], a.start_ns[i] + (p == 0 ? 0 : -7'000));
        EXPECT_EQ(t.strings.get(b.name_id[i]), run.ranks[p].trace.strings.get(a.name_id[i]));
      }
    }
  }
  ASSERT_EQ(t.launches().size(), 2u);
  for (const LaunchLink& l : t.launches()) {
    ASSERT_TRUE(l.launch.has_value());
    ASSERT_EQ(l.gpu_ops.size(), 1u);
    EXPECT_EQ(t.tracks[l.launch->track].rank, t.tracks[l.gpu_ops[0].track].rank);
  }
  const Track& cpu3 = t.tracks[m.track_of[1][0]];
  EXPECT_EQ(cpu3.kind, TrackKind::Cpu);
  EXPECT_EQ(t.strings.get(cpu3.process_name_id), "rank 3");
}

TEST(RunMerge, TheHtaFixtureKeepsEveryEventAndArgument) {
  const fuselab::Run run = loadRun(traceFilesIn(test::multirankFixtureDir()));
  const MergedRun m = mergeRun(run, {0, 0});
  EXPECT_EQ(m.trace->eventCount(), run.ranks[0].trace.eventCount() + run.ranks[1].trace.eventCount());
  const Track& src = run.ranks[1].trace.tracks[0];
  const Track& dst = m.trace->tracks[m.track_of[1][0]];
  for (size_t i = 0; i < src.size(); ++i)
    EXPECT_EQ(m.trace->argsJson(dst.args[i]), run.ranks[1].trace.argsJson(src.args[i]));
}

// One rank alone (its lanes, loaded again) keeps its ids and takes its launch
// links over: the same links a rebuild finds, at the merged tracks.
TEST(RunMerge, OneRankAloneKeepsItsIdsAndLaunchLinks) {
  const fuselab::Run run = loadRun(traceFilesIn(test::multirankFixtureDir()));
  const Trace& src = run.ranks[1].trace;
  const MergedRun m = mergeRun(run, std::vector<MergeSource>{{}, {&src}}, {0, 123});
  ASSERT_FALSE(src.launches().empty());
  ASSERT_EQ(m.trace->launches().size(), src.launches().size());
  for (const LaunchLink& l : src.launches()) {
    const LaunchLink* got = m.trace->launchFor(l.correlation);
    ASSERT_NE(got, nullptr) << "correlation " << l.correlation;
    ASSERT_EQ(got->launch.has_value(), l.launch.has_value());
    if (l.launch) EXPECT_EQ(*got->launch, m.toMerged(1, *l.launch));
    ASSERT_EQ(got->gpu_ops.size(), l.gpu_ops.size());
    for (size_t k = 0; k < l.gpu_ops.size(); ++k) EXPECT_EQ(got->gpu_ops[k], m.toMerged(1, l.gpu_ops[k]));
  }
  Trace rebuilt = *m.trace;
  rebuilt.finalize();
  ASSERT_EQ(rebuilt.launches().size(), m.trace->launches().size());
  for (const LaunchLink& l : rebuilt.launches()) {
    const LaunchLink* got = m.trace->launchFor(l.correlation);
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got->launch, l.launch);
    EXPECT_EQ(got->gpu_ops, l.gpu_ops);
  }
}

// Each rank's links, built on a core of their own, are the rank's own links
// on the merged tracks, rank after rank, and found by their merged ids.
TEST(RunMerge, EveryRanksLaunchLinksAreItsOwnRankAfterRank) {
  for (const auto& dir : {test::multirankFixtureDir(), test::ncclFuselabFixtureDir()}) {
    SCOPED_TRACE(dir.string());
    const fuselab::Run run = loadRun(traceFilesIn(dir));
    const MergedRun m = mergeRun(run, std::vector<int64_t>(run.ranks.size(), 0));
    size_t k = 0;
    for (size_t p = 0; p < run.ranks.size(); ++p) {
      ASSERT_FALSE(run.ranks[p].trace.launches().empty());
      for (const LaunchLink& l : run.ranks[p].trace.launches()) {
        ASSERT_LT(k, m.trace->launches().size());
        const LaunchLink& got = m.trace->launches()[k++];
        EXPECT_EQ(got.correlation, l.correlation + (int64_t(p + 1) << 40));
        EXPECT_EQ(m.trace->launchFor(got.correlation), &got);
        ASSERT_EQ(got.launch.has_value(), l.launch.has_value());
        if (l.launch) EXPECT_EQ(*got.launch, m.toMerged(p, *l.launch));
        ASSERT_EQ(got.gpu_ops.size(), l.gpu_ops.size());
        for (size_t i = 0; i < l.gpu_ops.size(); ++i) EXPECT_EQ(got.gpu_ops[i], m.toMerged(p, l.gpu_ops[i]));
      }
    }
    EXPECT_EQ(k, m.trace->launches().size());
  }
}

fuselab::Run withWarnings(fuselab::Run run) {
  run.warnings.push_back("a note on the run");
  for (RankTrace& r : run.ranks) r.trace.meta.warnings.push_back("a note on rank " + std::to_string(r.rank));
  return run;
}

// A rank merged alone in place is what the copying merge of it alone gives,
// with the same launch links, and named for its rank.
TEST(RunMerge, ARankMergedAloneInPlaceIsItsMergeAlone) {
  for (const auto& dir : {test::multirankFixtureDir(), test::ncclFuselabFixtureDir()}) {
    SCOPED_TRACE(dir.string());
    const fuselab::Run run = withWarnings(loadRun(traceFilesIn(dir)));
    const std::vector<int64_t> offsets = {-55, 123'456};
    const MergedRun copied = mergeRun(run, std::vector<MergeSource>{{}, {&run.ranks[1].trace}}, offsets);
    const MergedRun alone = mergeRankAlone(run, 1, run.ranks[1].trace, offsets);
    std::string why;
    EXPECT_TRUE(alone.trace->sameContentAs(*copied.trace, &why)) << why;
    EXPECT_EQ(alone.trace->meta.source, copied.trace->meta.source);
    EXPECT_EQ(alone.trace->meta.warnings, copied.trace->meta.warnings);
    EXPECT_EQ(alone.trace->meta.warnings.size(), 2u);
    EXPECT_FALSE(alone.hasRank(0));
    ASSERT_EQ(alone.track_of[1].size(), copied.track_of[1].size());
    for (size_t t = 0; t < alone.track_of[1].size(); ++t) {
      const Track& a = alone.trace->tracks[alone.track_of[1][t]];
      const Track& c = copied.trace->tracks[copied.track_of[1][t]];
      EXPECT_EQ(a.rank, run.ranks[1].rank);
      EXPECT_EQ(a.pid, c.pid);
      EXPECT_EQ(alone.trace->strings.get(a.pid_id), copied.trace->strings.get(c.pid_id));
    }
    ASSERT_EQ(alone.trace->launches().size(), copied.trace->launches().size());
    for (const LaunchLink& l : copied.trace->launches()) {
      const LaunchLink* got = alone.trace->launchFor(l.correlation);
      ASSERT_NE(got, nullptr) << "correlation " << l.correlation;
      EXPECT_EQ(got->gpu_ops.size(), l.gpu_ops.size());
    }
    // Its tracks are found by their new names.
    Trace found = *alone.trace;
    const Track& first = found.tracks[0];
    EXPECT_EQ(found.trackFor(std::string(found.strings.get(first.pid_id)), std::string(found.strings.get(first.tid_id))), 0u);
  }
}

// Ranks merged alone, on one alignment, merge on another as their own
// traces do.
TEST(RunMerge, RanksMergedAloneMergeAsTheirOwnTraces) {
  const fuselab::Run run = withWarnings(loadRun(traceFilesIn(test::ncclFuselabFixtureDir())));
  const std::vector<int64_t> before = {0, 50'000}, after = {-7'000, 9'000};
  std::vector<MergedRun> alone;
  std::vector<MergeSource> sources;
  for (size_t p = 0; p < run.ranks.size(); ++p) alone.push_back(mergeRankAlone(run, p, run.ranks[p].trace, before));
  for (size_t p = 0; p < run.ranks.size(); ++p) sources.push_back({alone[p].trace.get(), true, before[p]});
  for (const std::vector<int64_t>& offsets : {before, after}) {
    const MergedRun want = mergeRun(run, offsets);
    const MergedRun got = mergeRun(run, sources, offsets);
    std::string why;
    EXPECT_TRUE(got.trace->sameContentAs(*want.trace, &why)) << why;
    EXPECT_EQ(got.trace->meta.warnings, want.trace->meta.warnings);
    EXPECT_EQ(got.track_of, want.track_of);
  }
}

}  // namespace
}  // namespace fuselab
