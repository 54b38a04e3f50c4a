// The one entry from paths to a trace or a run (TraceOrRun.h), on the
// recorded fixtures and on paths that name nothing readable.
#include "profiling/analysis/run/TraceOrRun.h"

#include <gtest/gtest.h>

#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

TEST(TraceOrRun, AFileIsOneTrace) {
  const OpenedTraceOrRun opened = openTraceOrRun({test::fixture("mlp_eager.json.gz")});
  ASSERT_TRUE(opened.trace);
  EXPECT_FALSE(opened.run);
  EXPECT_EQ(opened.trace->eventCount(), importChromeTrace(test::fixture("mlp_eager.json.gz")).eventCount());
}

TEST(TraceOrRun, AFolderIsARunAnalysedAndMerged) {
  const OpenedTraceOrRun opened = openTraceOrRun({test::multirankFixtureDir()});
  ASSERT_TRUE(opened.run);
  ASSERT_EQ(opened.run->run->ranks.size(), 2u);
  EXPECT_EQ(opened.trace.get(), opened.run->merged.trace.get());
  size_t events = 0;
  for (const RankTrace& r : opened.run->run->ranks) events += r.trace.eventCount();
  EXPECT_EQ(opened.trace->eventCount(), events);
  EXPECT_FALSE(opened.run->analysis->collectives.empty());
}

TEST(TraceOrRun, WhatCannotBeReadSaysWhichFile) {
  const std::filesystem::path empty = test::scratchDir("TraceOrRunEmpty");
  try {
    openTraceOrRun({empty});
    FAIL() << "an empty folder opened";
  } catch (const RunLoadError& e) {
    EXPECT_NE(std::string(e.what()).find(empty.string()), std::string::npos) << e.what();
  }
  const std::filesystem::path missing = empty / "missing.json";
  try {
    openTraceOrRun({missing});
    FAIL() << "a missing file opened";
  } catch (const TraceImportError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.json"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(empty);
}

}  // namespace
}  // namespace fuselab
