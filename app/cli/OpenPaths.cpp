#include "app/cli/OpenPaths.h"

#include <iostream>
#include <system_error>

#include "app/cli/Commands.h"
#include "profiling/trace/RunLoader.h"
#include "profiling/trace/TracePaths.h"

namespace fuselab {

namespace fs = std::filesystem;

std::vector<fs::path> tracesToOpen(const std::vector<std::string>& paths) {
  std::vector<fs::path> given;
  for (const std::string& p : paths) {
    std::error_code ec;
    const fs::file_status st = fs::status(p, ec);
    if (!fs::exists(st)) throw OpenPathsError("no such file or folder: " + p);
    if (!fs::is_directory(st) && !fs::is_regular_file(st)) throw OpenPathsError("not a file or a folder: " + p);
    given.emplace_back(p);
  }
  try {
    return expandRunPaths(given);  // a folder: its trace files, as a run reads them
  } catch (const RunLoadError& e) {
    throw OpenPathsError(e.what());
  }
}

int openPathsInWindow(const std::vector<std::string>& paths) {
  std::vector<fs::path> traces;
  try {
    traces = tracesToOpen(paths);
  } catch (const OpenPathsError& e) {
    std::cerr << "fuselab: " << e.what() << "\n";
    return 2;
  }
  if (!pathsNameRun(std::vector<fs::path>(paths.begin(), paths.end())) && traces.size() == 1)
    return openWindow(traces.front().string());
  return openWindowWith(paths);
}

}  // namespace fuselab
