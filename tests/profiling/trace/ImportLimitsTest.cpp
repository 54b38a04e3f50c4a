// Opening traces too large for the machine (refused before they are read),
// cancelling an import, and its progress.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <string>

#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/Gzip.h"
#include "profiling/trace/MemoryBudget.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

// Sets FUSELAB_AVAILABLE_MEMORY for one test (a simulated smaller machine).
class SimulatedMemory {
 public:
  explicit SimulatedMemory(const char* value) { ::setenv("FUSELAB_AVAILABLE_MEMORY", value, 1); }
  ~SimulatedMemory() { ::unsetenv("FUSELAB_AVAILABLE_MEMORY"); }
};

// A valid trace of about `bytes` of JSON.
std::string traceOfSize(size_t bytes) {
  std::string s = "{\"traceEvents\": [\n";
  for (size_t i = 0; s.size() < bytes; ++i) {
    if (i) s += ",\n";
    s += "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": " +
         std::to_string(i * 10) + ", \"dur\": 5, \"args\": {\"External id\": " + std::to_string(i) + "}}";
  }
  return s + "\n]}\n";
}

// A folder per test: ctest runs the tests of this file side by side.
std::filesystem::path writeFile(const std::string& name, const std::string& bytes) {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  auto path = test::scratchDir("ImportLimits." + test) / name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string importError(const std::filesystem::path& path, const ChromeImportOptions& options = {}) {
  try {
    importChromeTrace(path, options);
  } catch (const TraceImportError& e) {
    return e.what();
  }
  return "";
}

TEST(MemoryBudget, ByteSizesAndTheOverride) {
  EXPECT_EQ(parseByteSize("12"), 12u);
  EXPECT_EQ(parseByteSize("512M"), 512'000'000u);
  EXPECT_EQ(parseByteSize("1.5G"), 1'500'000'000u);
  EXPECT_FALSE(parseByteSize("lots"));
  EXPECT_FALSE(parseByteSize("-1G"));
  {
    SimulatedMemory small("300M");
    auto avail = availableMemory();
    ASSERT_TRUE(avail);
    EXPECT_EQ(avail->bytes, 300'000'000u);
    EXPECT_EQ(avail->source, "FUSELAB_AVAILABLE_MEMORY");
  }
  auto real = availableMemory();
  ASSERT_TRUE(real) << "this machine has /proc/meminfo";
  EXPECT_GT(real->bytes, 0u);
  EXPECT_NE(real->source, "FUSELAB_AVAILABLE_MEMORY");
}

TEST(ImportLimits, ATraceLargerThanMemoryIsRefusedBeforeItIsRead) {
  auto path = writeFile("big.json", traceOfSize(2'000'000));
  ImportProgress progress;
  ChromeImportOptions options;
  options.progress = &progress;
  {
    SimulatedMemory small("20M");  // less than the estimate for 2 MB of JSON (its buffers included)
    std::string msg = importError(path, options);
    EXPECT_NE(msg.find("big.json: too large to open here"), std::string::npos) << msg;
    EXPECT_NE(msg.find("20 MB is available (FUSELAB_AVAILABLE_MEMORY)"), std::string::npos) << msg;
    EXPECT_EQ(progress.done.load(), 0u) << "refused before reading";
  }
  {
    SimulatedMemory enough("1G");
    Trace t = importChromeTrace(path, options);
    EXPECT_GT(t.eventCount(), 10'000u);
    EXPECT_EQ(progress.done.load(), progress.total.load());
  }
}

TEST(ImportLimits, AGzipWhoseSizeFieldUndersellsItIsStoppedWhileReading) {
  // Two gzip members: the size field at the end is the last (tiny) member's,
  // so the estimate made before reading is low; the check while reading
  // stops it instead of the kernel's OOM killer.
  std::string text = traceOfSize(16'000'000);
  std::string tail = text.substr(text.size() - 4);
  std::string gz = gzipCompress(text.substr(0, text.size() - 4)) + gzipCompress(tail);
  auto path = writeFile("undersold.json.gz", gz);
  SimulatedMemory limit("75M");  // passes the first check, not the 16 MB read
  std::string msg = importError(path);
  EXPECT_NE(msg.find("undersold.json.gz: too large to open here"), std::string::npos) << msg;
  EXPECT_NE(msg.find("of JSON read so far"), std::string::npos) << msg;
}

TEST(ImportLimits, CancelStopsTheImport) {
  auto path = writeFile("cancelled.json", traceOfSize(20'000'000));  // several read-ahead chunks
  ImportProgress progress;
  progress.cancel = true;
  ChromeImportOptions options;
  options.progress = &progress;
  try {
    importChromeTrace(path, options);
    FAIL() << "a cancelled import returned a trace";
  } catch (const TraceImportCancelled& e) {
    EXPECT_NE(std::string(e.what()).find("cancelled.json: cancelled"), std::string::npos) << e.what();
  }
  EXPECT_LT(progress.done.load(), progress.total.load()) << "stopped before the end of the file";
  EXPECT_EQ(progress.total.load(), std::filesystem::file_size(path));
}

TEST(ImportLimits, ProgressReachesTheFileSize) {
  auto path = writeFile("progress.json.gz", gzipCompress(traceOfSize(6'000'000)));
  ImportProgress progress;
  ChromeImportOptions options;
  options.progress = &progress;
  Trace t = importChromeTrace(path, options);
  EXPECT_GT(t.eventCount(), 0u);
  EXPECT_EQ(progress.total.load(), std::filesystem::file_size(path)) << "gzip: the compressed size";
  EXPECT_EQ(progress.done.load(), progress.total.load());
}

}  // namespace
}  // namespace fuselab
