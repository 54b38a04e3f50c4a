#include "profiling/trace/AtomicFile.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AtomicFile, WritesAndReplaces) {
  auto dir = test::scratchDir("AtomicFile_WritesAndReplaces");
  auto file = dir / "out.json";
  writeFileAtomically(file, "first");
  EXPECT_EQ(slurp(file), "first");
  writeFileAtomically(file, "second");
  EXPECT_EQ(slurp(file), "second");
  // No temporary files left behind.
  int entries = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(AtomicFile, FailedWriteKeepsOldFileAndNamesPath) {
  auto dir = test::scratchDir("AtomicFile_FailedWrite");
  auto file = dir / "keep.json";
  writeFileAtomically(file, "precious");
  auto missing_dir_file = dir / "no-such-dir" / "x.json";
  try {
    writeFileAtomically(missing_dir_file, "data");
    FAIL() << "expected FileWriteError";
  } catch (const FileWriteError& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-dir"), std::string::npos) << e.what();
  }
  // Renaming onto a directory fails: the directory (and the old file) survive.
  auto target_dir = dir / "is-a-dir";
  std::filesystem::create_directories(target_dir / "child");
  EXPECT_THROW(writeFileAtomically(target_dir, "data"), FileWriteError);
  EXPECT_TRUE(std::filesystem::is_directory(target_dir / "child"));
  EXPECT_EQ(slurp(file), "precious");
}

}  // namespace
}  // namespace fuselab
