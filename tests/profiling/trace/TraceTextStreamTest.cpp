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
  // A file of `bytes` bytes in a folder of this test's own, each byte its
  // offset's digit, so that a chunk read out of place shows.
  std::filesystem::path writeBytes(const std::string& name, size_t bytes) {
    const std::filesystem::path file = test::scratchDir(folder_) / name;
    std::ofstream(file, std::ios::binary) << digits(bytes);
    return file;
  }
  static std::string digits(size_t bytes) {
    std::string text(bytes, '0');
    for (size_t i = 0; i < bytes; ++i) text[i] = char('0' + i % 7);
    return text;
  }
  void TearDown() override { std::filesystem::remove(test::scratchDir(folder_)); }  // empties it, then removes it

  std::string folder_ = "TraceTextStream-" + std::to_string(::getpid());
};

TEST_F(TraceTextStreamFile, AFileThatGrowsWhileItIsReadIsReported) {
  // Six chunks: the file grows once the first has been read.
  const std::filesystem::path file = writeBytes("growing.json", size_t(24) << 20);
  TraceTextStream stream(file, "growing.json");
  TextBuffer text;
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
  const size_t bytes = (size_t(9) << 20) + 5;  // three chunks, the last short
  const std::filesystem::path file = writeBytes("whole.json", bytes);
  TraceTextStream stream(file, "whole.json");
  TextBuffer text;
  while (stream.next(text)) {}
  EXPECT_TRUE(std::string_view(text.data(), text.size()) == digits(bytes));
  EXPECT_EQ(stream.sourceBytesRead(), bytes);
}

}  // namespace
}  // namespace fuselab
