// `fuselab analyze DIR` and `fuselab analyze FILE FILE...`: the analysis of
// a run (several ranks of one job) as text or JSON.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "profiling/analysis/run/RunAnalysis.h"

namespace fuselab {

// True when `paths` name a run rather than one trace file: several paths, or a folder.
bool isRunArgument(const std::vector<std::string>& paths);

// Loads the run, analyses it and prints the report; returns the exit code.
// Errors go to stderr, naming the file at fault.
int analyzeRunCommand(const std::vector<std::string>& paths, bool json, const RunAnalysisOptions& options);

}  // namespace fuselab
