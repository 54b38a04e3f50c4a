#include "tests/support/BuildPaths.h"
#include "tests/support/TestPaths.h"

#include <ftw.h>

#include <cstdio>

namespace fuselab::test {

namespace {
// std::filesystem::remove_all is not used: libtorch.so exports its own copy
// of the std::filesystem functions, which the test binaries bind to, and that
// remove_all crashes on a non-empty directory.
void removeTree(const std::filesystem::path& dir) {
  ::nftw(
      dir.c_str(), [](const char* path, const struct stat*, int, struct FTW*) {
        std::remove(path);  // keep going: what cannot be removed shows up later
        return 0;
      },
      16, FTW_DEPTH | FTW_PHYS);
}
}  // namespace

std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(fuselab::build_paths::fixturesDir()) / name;
}

std::filesystem::path multirankFixtureDir() {
  return std::filesystem::path(fuselab::build_paths::fixturesDir()).parent_path() / "kineto-multirank-hta";
}

std::filesystem::path ncclFuselabFixtureDir() {
  return std::filesystem::path(fuselab::build_paths::fixturesDir()).parent_path() / "nccl-2gpu-fuselab";
}

std::filesystem::path dataDir(const std::string& name) {
  return std::filesystem::path(fuselab::build_paths::sourceDir()) / "tests" / "data" / name;
}

std::filesystem::path scratchDir(const std::string& test_name) {
  auto dir = std::filesystem::path(fuselab::build_paths::binaryDir()) / "test-scratch" / test_name;
  removeTree(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string pythonExe() { return fuselab::build_paths::pythonExe(); }

}  // namespace fuselab::test
