#include "tests/support/TestPaths.h"

namespace fuselab::test {

std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(FUSELAB_FIXTURES_DIR) / name;
}

std::filesystem::path scratchDir(const std::string& test_name) {
  auto dir = std::filesystem::path(FUSELAB_BINARY_DIR) / "test-scratch" / test_name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string pythonExe() { return FUSELAB_PYTHON_EXE; }

}  // namespace fuselab::test
