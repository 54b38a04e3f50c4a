#include "profiling/trace/TracePaths.h"

namespace fuselab {

bool pathNamesRun(const std::filesystem::path& path) {
  std::error_code ec;  // a path that cannot be read is no folder: opening it as a file names the error
  return std::filesystem::is_directory(path, ec);
}

bool pathsNameRun(const std::vector<std::filesystem::path>& paths) {
  return paths.size() > 1 || (paths.size() == 1 && pathNamesRun(paths.front()));
}

}  // namespace fuselab
