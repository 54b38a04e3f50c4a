// Opening a run rank by rank (RunStreaming.h): the summaries give the same
// analysis as the ranks held whole, on the real NCCL runs; events are kept
// or dropped by the memory the run may use; bad ranks are named and
// skipped; a dropped run loads a rank's lanes on demand
// and evicts the oldest (RunView.h).
#include "profiling/analysis/run/RunStreaming.h"

#include <gtest/gtest.h>

#include <fstream>

#include "profiling/analysis/critical_path/CriticalPathGraph.h"
#include "profiling/analysis/critical_path/PathTraces.h"
#include "profiling/analysis/run/RunCriticalPath.h"
#include "profiling/analysis/run/RunView.h"
#include "profiling/trace/MemoryBudget.h"
#include "profiling/trace/TraceTextStream.h"
#include "tests/support/RankFiles.h"
#include "tests/support/SameCriticalPath.h"
#include "tests/support/SameRunAnalysis.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> realRuns() {
  return {test::multirankFixtureDir(), test::ncclFuselabFixtureDir(), test::dataDir("nccl-2gpu-torch") / "run"};
}

RunStreamOptions dropping() {
  RunStreamOptions o;
  o.keep = KeepEvents::Never;
  return o;
}

TEST(RunStreaming, SummariesGiveTheAnalysisOfTheWholeRanks) {
  for (const fs::path& dir : realRuns()) {
    SCOPED_TRACE(dir.string());
    const fuselab::Run whole = loadRun(traceFilesIn(dir));
    const RunAnalysis expected = analyzeRun(whole);
    ASSERT_FALSE(expected.collectives.empty());
    const StreamedRun streamed = streamRun(traceFilesIn(dir), dropping());
    EXPECT_FALSE(streamed.eventsKept());
    for (const RankTrace& r : streamed.run->ranks) {
      EXPECT_TRUE(r.events_dropped);
      EXPECT_EQ(r.trace.eventCount(), 0u);
      EXPECT_TRUE(r.info.present) << "the meta stays";
    }
    test::expectSameRunAnalysis(streamed.analysis, expected);
  }
}

// Each rank's part of the graph, built as it is read, joins into the graph
// of the merged run: the same paths and what-ifs as one built over it.
TEST(RunStreaming, PathPartsJoinIntoTheMergedRunsPath) {
  for (const fs::path& dir : realRuns()) {
    SCOPED_TRACE(dir.string());
    RunStreamOptions o;
    o.keep = KeepEvents::Always;
    o.critical_path_parts = true;
    const StreamedRun streamed = streamRun(traceFilesIn(dir), o);
    ASSERT_EQ(streamed.path_parts.size(), streamed.run->ranks.size());
    const MergedRun merged = mergeRun(*streamed.run, streamed.analysis.alignment.offsets_ns);
    const CriticalPathAnalysis built = analyzeRunCriticalPath(streamed.analysis, merged);
    ASSERT_FALSE(built.steps.empty());
    ASSERT_FALSE(built.what_if.empty());
    test::expectSameCriticalPath(analyzeRunCriticalPath(streamed.analysis, merged, {}, streamed.path_parts), built);
    // The joined graph's order (each part's, held at the collectives) is a
    // topological one of every node: scheduling nothing halved gives every
    // observed time.
    std::vector<const CriticalPathGraph*> parts;
    for (const auto& p : streamed.path_parts) parts.push_back(p.get());
    const std::optional<CriticalPathGraph> joined =
        CriticalPathGraph::join(parts, merged.track_of, streamed.analysis.alignment.offsets_ns,
                                merged.trace->tracks.size(), collectiveDependencies(streamed.analysis, merged));
    ASSERT_TRUE(joined.has_value());
    std::vector<int64_t> scheduled, observed;
    joined->schedule({}, scheduled);
    joined->observedTimes(observed);
    EXPECT_EQ(scheduled, observed);
    // Read against the ranks' own traces, with no merge (`analyze DIR`): the
    // same path, its tracks and events the merged trace's.
    const std::optional<CriticalPathAnalysis> unmerged =
        runCriticalPath(*streamed.run, streamed.analysis, streamed.path_parts);
    ASSERT_TRUE(unmerged.has_value());
    test::expectSameCriticalPath(*unmerged, built);
    const PathTraces traces(*streamed.run, streamed.analysis.alignment.offsets_ns);
    EXPECT_EQ(traces.trackOf(), merged.track_of);
    EXPECT_EQ(traces.beginNs(), merged.trace->beginNs());
    ASSERT_EQ(traces.trackCount(), merged.trace->tracks.size());
    for (uint32_t t = 0; t < traces.trackCount(); ++t) {
      EXPECT_EQ(traces.rank(t), merged.trace->tracks[t].rank) << t;
      EXPECT_EQ(traces.track(t).size(), merged.trace->tracks[t].size()) << t;
    }
    size_t named = 0;
    for (const StepPath& p : unmerged->steps)
      for (const PathSegment& seg : p.segments)
        if (seg.event && !traces.name(*seg.event).empty()) {
          EXPECT_EQ(traces.name(*seg.event), merged.trace->name(*seg.event));
          ++named;
        }
    EXPECT_GT(named, 0u);
  }
  RunStreamOptions dropped = dropping();
  dropped.critical_path_parts = true;
  EXPECT_TRUE(streamRun(traceFilesIn(realRuns().front()), dropped).path_parts.empty()) << "no events, no parts";
}

TEST(RunStreaming, KeepsTheEventsOnlyWhenTheRunFits) {
  const auto files = traceFilesIn(test::multirankFixtureDir());
  RunStreamOptions o;
  o.memory_bytes = uint64_t(1) << 40;
  const StreamedRun roomy = streamRun(files, o);
  EXPECT_TRUE(roomy.eventsKept());
  EXPECT_TRUE(roomy.dropped_reason.empty());
  EXPECT_GT(roomy.run->ranks[0].trace.eventCount(), 0u);

  o.memory_bytes = 100'000'000;  // less than two imports' estimate
  const StreamedRun tight = streamRun(files, o);
  EXPECT_FALSE(tight.eventsKept());
  EXPECT_NE(tight.dropped_reason.find("100 MB available"), std::string::npos) << tight.dropped_reason;
  test::expectSameRunAnalysis(tight.analysis, roomy.analysis);

  o.keep = KeepEvents::Required;
  FilesReadProgress progress;
  o.reading.progress = &progress;
  try {
    streamRun(files, o);
    FAIL() << "a run that needs its events and does not fit is refused";
  } catch (const RunLoadError& e) {
    EXPECT_NE(std::string(e.what()).find("needs every rank's events"), std::string::npos) << e.what();
  }
  EXPECT_EQ(progress.filesDone(), 0u) << "refused before reading";
}

TEST(RunStreaming, ABadRankIsNamedAndSkipped) {
  const auto dir = test::scratchDir("RunStreamingBadRank");
  std::vector<fs::path> files;
  for (int r = 0; r < 4; ++r)
    files.push_back(test::writeRankFile(dir, "rank-" + std::to_string(r) + ".json", test::distributedInfo(r, 4)));
  std::string text = test::rankTraceJson(test::distributedInfo(2, 4)).dump();
  test::writeText(dir, "rank-2.json", text.substr(0, text.size() / 2));  // truncated
  const StreamedRun s = streamRun(files, dropping());
  ASSERT_EQ(s.run->ranks.size(), 3u);
  EXPECT_EQ(s.run->missing_ranks, std::vector<int>{2});
  ASSERT_EQ(s.run->warnings.size(), 1u);
  EXPECT_NE(s.run->warnings[0].find("rank-2.json"), std::string::npos) << s.run->warnings[0];
  EXPECT_EQ(s.analysis.ranks.size(), 3u);
}

TEST(RunStreaming, ImportsInFlightStayWithinTheBudget) {
  EXPECT_EQ(streamingImportBudget(uint64_t(6) << 30), uint64_t(1) << 30);
  EXPECT_TRUE(runFitsInMemory(4, 8));
  EXPECT_FALSE(runFitsInMemory(5, 8));
  // A budget below one import still reads every rank, one at a time
  // (TraceFileReaderTest.cpp checks the one at a time).
  RunStreamOptions o = dropping();
  o.memory_bytes = 1;
  const StreamedRun s = streamRun(traceFilesIn(test::multirankFixtureDir()), o);
  EXPECT_EQ(s.analysis.ranks.size(), 2u);
  EXPECT_FALSE(s.analysis.collectives.empty());
}

TEST(RunLanes, ADroppedRunLoadsARanksLanesAndEvictsTheOldest) {
  const auto files = traceFilesIn(test::ncclFuselabFixtureDir());
  RunStreamOptions o = dropping();
  // Room for one rank's lanes at a time.
  o.memory_bytes = 6 * (importPeakEstimate(traceTextSizeHint(files[0])) + (uint64_t(1) << 20));
  const RunView dropped = openRunView(files, o);
  ASSERT_TRUE(dropped.eventsDropped());
  EXPECT_EQ(dropped.merged.trace->eventCount(), 0u);
  EXPECT_FALSE(dropped.mergedEvent(0, {0, 0}));

  const RunView one = withRankLanes(dropped, 1);
  EXPECT_FALSE(one.hasLanes(0));
  EXPECT_TRUE(one.hasLanes(1));
  EXPECT_EQ(one.merged.trace, one.lanes.back().alone.trace) << "one rank's lanes are merged in place, not copied";
  EXPECT_EQ(one.analysis, dropped.analysis) << "the run's analysis is shared, not copied";
  const RunView whole = openRunView(files);
  const CollectiveStats& c = one.analysis->collectives.front();
  for (const CollectiveArrival& a : c.arrivals) {
    const auto e = one.mergedEvent(a.rank_pos, a.event);
    ASSERT_EQ(bool(e), a.rank_pos == 1);
    if (!e) continue;
    const auto want = *whole.mergedEvent(a.rank_pos, a.event);
    const Track& got_track = one.merged.trace->tracks[e->track];
    const Track& want_track = whole.merged.trace->tracks[want.track];
    EXPECT_EQ(one.merged.trace->strings.get(got_track.name_id[e->index]),
              whole.merged.trace->strings.get(want_track.name_id[want.index]));
    EXPECT_EQ(got_track.start_ns[e->index], want_track.start_ns[want.index]) << "same aligned axis";
  }
  const RunView other = withRankLanes(one, 0);
  EXPECT_TRUE(other.hasLanes(0));
  EXPECT_FALSE(other.hasLanes(1)) << "evicted: the oldest lanes make room";
  ASSERT_EQ(other.lanes.size(), 1u);
  EXPECT_EQ(other.lanes[0].rank_pos, 0u);
}

// Every rank loaded again merges as the run held whole does, on the run's
// alignment and on others; so does one rank realigned.
TEST(RunLanes, RanksLoadedAgainMergeAsTheWholeRunOnEveryAlignment) {
  const auto files = traceFilesIn(test::ncclFuselabFixtureDir());
  const RunView whole = openRunView(files);
  const RunView dropped = openRunView(files, dropping());
  const RunView both = withRankLanes(withRankLanes(dropped, 0), 1);
  ASSERT_EQ(both.lanes.size(), 2u);
  std::string why;
  EXPECT_TRUE(both.merged.trace->sameContentAs(*whole.merged.trace, &why)) << why;
  for (AlignMethod m : {AlignMethod::None, AlignMethod::Collectives}) {
    SCOPED_TRACE(std::string(alignMethodName(m)));
    EXPECT_TRUE(realignRunView(both, m).merged.trace->sameContentAs(*realignRunView(whole, m).merged.trace, &why)) << why;
    const RunView one = realignRunView(withRankLanes(dropped, 1), m);
    const RunView loaded_after = withRankLanes(realignRunView(dropped, m), 1);
    EXPECT_TRUE(one.merged.trace->sameContentAs(*loaded_after.merged.trace, &why)) << why;
    EXPECT_EQ(loaded_after.merged.trace, loaded_after.lanes[0].alone.trace);
  }
}

TEST(RunLanes, ARankFileChangedSinceOpeningIsReported) {
  const auto dir = test::scratchDir("RunLanesChanged");
  std::vector<fs::path> files;
  for (int r = 0; r < 2; ++r)
    files.push_back(test::writeRankFile(dir, "rank-" + std::to_string(r) + ".json", test::distributedInfo(r, 2)));
  const RunView dropped = openRunView(files, dropping());
  nlohmann::json j = test::rankTraceJson(test::distributedInfo(1, 2));
  j["traceEvents"].push_back(j["traceEvents"][0]);
  test::writeText(dir, "rank-1.json", j.dump());
  try {
    withRankLanes(dropped, 1);
    FAIL() << "a changed file is not loaded under the old analysis";
  } catch (const TraceImportError& e) {
    EXPECT_NE(std::string(e.what()).find("changed since the run was opened"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fuselab
