// What `fuselab PATH...` and `fuselab open PATH...` open: the trace files
// named on the command line, a folder standing for the traces in it.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace fuselab {

// A path that cannot be opened; the message names it and says why.
class OpenPathsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The trace files to open, in the order given; a folder gives its traces
// (not its sub-folders), sorted by name (traceFilesIn, as runs read them). Throws OpenPathsError for a missing
// path, something that is neither a file nor a folder, or a folder without
// traces.
std::vector<std::filesystem::path> tracesToOpen(const std::vector<std::string>& paths);

// Opens the window on `paths` (none: an empty window; one file: that trace;
// a folder or several files: one run of their traces). Returns the exit
// code: 2 with a message on stderr for paths that cannot be opened.
int openPathsInWindow(const std::vector<std::string>& paths);

}  // namespace fuselab
