// What paths on a command line, in a dialog or dropped on the window name:
// the one rule the commands, the window and the tutorial share. Several
// paths, or one folder, are a run (one trace per rank; RunLoader.h reads
// it); one file is one trace.
#pragma once

#include <filesystem>
#include <vector>

namespace fuselab {

bool pathNamesRun(const std::filesystem::path& path);  // a folder
bool pathsNameRun(const std::vector<std::filesystem::path>& paths);

}  // namespace fuselab
