// Opening a run: a folder of rank traces, or several trace files, read in
// parallel into one Run. The rank comes from distributedInfo.rank, else the
// file name. Files of another job are refused, unreadable files are skipped
// (and named in Run::warnings), missing ranks are listed.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/Run.h"

namespace fuselab {

// The run cannot be opened; the message names the file(s) at fault.
class RunLoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunLoadOptions {
  ChromeImportOptions import;
  unsigned threads = 0;  // files read at once; 0: TraceFileReader.h's default
};

// The trace files (*.json, *.json.gz) directly inside `dir`, sorted by name.
// Throws RunLoadError when `dir` is not a folder or holds none.
std::vector<std::filesystem::path> traceFilesIn(const std::filesystem::path& dir);

// Folders replaced by the trace files in them; files kept as given.
std::vector<std::filesystem::path> expandRunPaths(const std::vector<std::filesystem::path>& paths);

// One file's trace as a rank of a run of `file_count` files: its rank from
// distributedInfo.rank, else the file name (rank 0 when it is alone). Throws
// RunLoadError when the rank cannot be told.
RankTrace rankTraceOf(const std::filesystem::path& file, Trace trace, size_t file_count);

// The run of these ranks (any order; `errors`: files that could not be read,
// kept as warnings): sorted by rank, checked (one file per rank, one job),
// world size and missing ranks set. Throws RunLoadError.
Run assembleRun(std::vector<RankTrace> ranks, std::vector<std::string> errors, size_t file_count);

// Reads every file (in parallel) and assembles the run. Throws RunLoadError
// when no file can be read, when two files hold the same rank, when a file's
// rank cannot be told, or when the files come from different jobs.
Run loadRun(const std::vector<std::filesystem::path>& files, const RunLoadOptions& options = {});

}  // namespace fuselab
