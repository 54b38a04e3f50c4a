// A trace file that changes while it is read (still being written, a rank
// file replaced while a run loads) is reported, not read as a mix.
#include "profiling/trace/TraceTextStream.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

class TraceTextStreamFile : public ::testing::Test {
 protected:
  // A file of `bytes` bytes in a folder of this test's own.
  std::filesystem::path writeBytes(const std::string& name, size_t bytes) {
    const std::filesystem::path file = test::scratchDir(folder_) / name;
    std::ofstream(file, std::ios::binary) << std::string(bytes, 'x');
    return file;
  }
  void TearDown() override { std::filesystem::remove(test::scratchDir(folder_)); }  // empties it, then removes it

  std::string folder_ = "TraceTextStream-" + std::to_string(::getpid());
};

TEST_F(TraceTextStreamFile, AFileThatGrowsWhileItIsReadIsReported) {
  // Six chunks: the reading thread stays at most four ahead of the one
  // taking them, so it has not reached the end when the file grows.
  const std::filesystem::path file = writeBytes("growing.json", size_t(24) << 20);
  TraceTextStream stream(file, "growing.json");
  std::string text;
  ASSERT_TRUE(stream.next(text));
  std::ofstream(file, std::ios::binary | std::ios::app) << "more";
  try {
    while (stream.next(text)) text.clear();
    FAIL() << "the change went unnoticed";
  } catch (const TraceImportError& e) {
    EXPECT_NE(std::string(e.what()).find("changed while it was being read"), std::string::npos) << e.what();
  }
}

TEST_F(TraceTextStreamFile, AFileReadWholeIsNotReportedAsChanged) {
  const std::filesystem::path file = writeBytes("whole.json", size_t(9) << 20);
  TraceTextStream stream(file, "whole.json");
  std::string text;
  size_t total = 0;
  while (stream.next(text)) {
    total += text.size();
    text.clear();
  }
  EXPECT_EQ(total, size_t(9) << 20);
}

}  // namespace
}  // namespace fuselab
