// Reading trace files side by side (TraceFileReader.h): every file handed
// over once, unreadable ones named, the memory budget holding imports to one
// at a time, how many files are read at once, a failing use rethrown,
// progress and cancel.
#include "profiling/trace/TraceFileReader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "profiling/trace/MemoryBudget.h"
#include "tests/support/RankFiles.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> rankFiles(const std::string& test, int count) {
  const auto dir = test::scratchDir(test);
  std::vector<fs::path> files;
  for (int r = 0; r < count; ++r)
    files.push_back(test::writeRankFile(dir, "rank-" + std::to_string(r) + ".json", test::distributedInfo(r, count)));
  return files;
}

TEST(TraceFileReader, HandsOverEveryReadableFileOnceAndNamesTheOthers) {
  std::vector<fs::path> files = rankFiles("TraceFileReaderAll", 6);
  test::writeText(files[0].parent_path(), "rank-3.json", "{\"traceEvents\": [");  // truncated
  std::mutex m;
  std::vector<size_t> used;
  TraceFilesReadOptions o;
  o.threads = 3;
  const auto errors = readTraceFiles(files, o, [&](size_t i, Trace&& t) {
    EXPECT_EQ(t.eventCount(), 1u);
    std::lock_guard lock(m);
    used.push_back(i);
  });
  std::sort(used.begin(), used.end());
  EXPECT_EQ(used, (std::vector<size_t>{0, 1, 2, 4, 5}));
  ASSERT_EQ(errors.size(), 6u);
  EXPECT_NE(errors[3].find("rank-3.json"), std::string::npos) << errors[3];
  for (size_t i : used) EXPECT_TRUE(errors[i].empty()) << errors[i];
}

TEST(TraceFileReader, ABudgetBelowOneImportReadsOneFileAtATime) {
  const auto files = rankFiles("TraceFileReaderBudget", 8);
  std::atomic<int> in_use{0}, most{0};
  TraceFilesReadOptions o;
  o.threads = 4;
  o.memory_budget = 1;
  readTraceFiles(files, o, [&](size_t, Trace&&) {
    const int now = ++in_use;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    --in_use;
  });
  EXPECT_EQ(most.load(), 1);
}

// A file per core, each parsed alone, once memory lets three quarters of
// the cores (two at least) read one; else half as many files as cores,
// each parsed on two threads; and what the caller asked for when it did.
TEST(TraceFileReader, ReadsAFilePerCoreWhenNearlyEveryCoreFitsOne) {
  const uint64_t peak = importPeakEstimate(uint64_t(396) << 20, false);  // one of a large run's ranks
  TraceFilesReadOptions o;
  auto plan = [&](size_t files, unsigned cores, uint64_t budget) {
    o.memory_budget = budget;
    const ReadingPlan p = planReading(files, cores, peak, o);
    return std::pair{p.threads, p.parse_alone};
  };
  EXPECT_EQ(plan(128, 16, 15 * peak), std::pair(15u, true));  // 23 GB on the H200: 15 of 16 cores
  EXPECT_EQ(plan(128, 16, 11 * peak), std::pair(8u, false));  // under three quarters
  EXPECT_EQ(plan(128, 16, UINT64_MAX), std::pair(16u, true));  // kept events: no budget
  EXPECT_EQ(plan(8, 2, 2 * peak), std::pair(2u, true));
  EXPECT_EQ(plan(8, 2, peak), std::pair(2u, false));  // one at a time: that one on both cores
  EXPECT_EQ(plan(2, 16, UINT64_MAX), std::pair(2u, false));  // few files: each on two threads
  EXPECT_EQ(plan(1, 1, UINT64_MAX), std::pair(1u, false));
  o.import.parallel = false;  // the caller parses each file alone
  EXPECT_EQ(plan(128, 16, UINT64_MAX), std::pair(8u, true));
  o.import.parallel = true;
  o.threads = 4;
  EXPECT_EQ(plan(128, 16, UINT64_MAX), std::pair(4u, false));
  EXPECT_EQ(plan(3, 16, UINT64_MAX), std::pair(3u, false));
}

TEST(TraceFileReader, AFailingUseIsRethrownOnceAllAreDone) {
  const auto files = rankFiles("TraceFileReaderThrow", 4);
  std::atomic<int> used{0};
  TraceFilesReadOptions o;
  o.threads = 2;
  EXPECT_THROW(readTraceFiles(files, o,
                              [&](size_t i, Trace&&) {
                                ++used;
                                if (i == 1) throw std::runtime_error("no rank");
                              }),
               std::runtime_error);
  EXPECT_EQ(used.load(), 4) << "the others were read";
}

TEST(TraceFileReader, ProgressCountsFilesAndBytes) {
  const auto files = rankFiles("TraceFileReaderProgress", 3);
  FilesReadProgress progress;
  TraceFilesReadOptions o;
  o.progress = &progress;
  readTraceFiles(files, o, [](size_t, Trace&&) {});
  EXPECT_EQ(progress.fileCount(), 3u);
  EXPECT_EQ(progress.filesDone(), 3u);
  uint64_t bytes = 0;
  for (const fs::path& f : files) bytes += fs::file_size(f);
  EXPECT_EQ(progress.bytesTotal(), bytes);
  EXPECT_EQ(progress.bytesDone(), bytes);
  EXPECT_TRUE(progress.text().starts_with("files read: 3 of 3, ")) << progress.text();
}

TEST(TraceFileReader, CancelStopsIt) {
  const auto files = rankFiles("TraceFileReaderCancel", 3);
  FilesReadProgress progress;
  progress.cancel();
  TraceFilesReadOptions o;
  o.progress = &progress;
  int used = 0;
  EXPECT_THROW(readTraceFiles(files, o, [&](size_t, Trace&&) { ++used; }), TraceImportCancelled);
  EXPECT_EQ(used, 0);
}

}  // namespace
}  // namespace fuselab
