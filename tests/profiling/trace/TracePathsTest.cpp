// The one rule for what paths name (TracePaths.h): a folder or several paths
// are a run, one file is one trace, a missing path is no run.
#include <gtest/gtest.h>

#include <filesystem>

#include "profiling/trace/TracePaths.h"
#include "tests/support/RankFiles.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

TEST(TracePaths, AFolderOrSeveralPathsAreARunAndOneFileIsATrace) {
  const std::filesystem::path dir = test::scratchDir("TracePaths");
  const std::filesystem::path file = test::writeText(dir, "rank-0.json", "{}");
  EXPECT_TRUE(pathNamesRun(dir));
  EXPECT_FALSE(pathNamesRun(file));
  EXPECT_FALSE(pathNamesRun(dir / "missing"));
  EXPECT_TRUE(pathsNameRun({dir}));
  EXPECT_FALSE(pathsNameRun({file}));
  EXPECT_TRUE(pathsNameRun({file, file}));
  EXPECT_FALSE(pathsNameRun({}));
}

}  // namespace
}  // namespace fuselab
