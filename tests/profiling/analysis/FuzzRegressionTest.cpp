// Every input the fuzzer found a problem with (tests/fuzz/regressions/, kept
// once fixed) must now pass the fuzz target's oracle.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/profiling/analysis/TraceImportOracle.h"
#include "tests/support/BuildPaths.h"

namespace fuselab {
namespace {

TEST(FuzzRegressions, EveryKeptFindingIsHandled) {
  const std::filesystem::path dir = std::filesystem::path(fuselab::build_paths::sourceDir()) / "tests/fuzz/regressions";
  size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    auto finding = test::checkTraceImport(bytes.str());
    EXPECT_FALSE(finding.has_value()) << entry.path().filename() << ": " << finding.value_or("");
    ++checked;
  }
  EXPECT_GE(checked, 5u) << "the regression inputs are missing from " << dir;
}

}  // namespace
}  // namespace fuselab
