#include "app/cli/AnalyzeRun.h"

#include <filesystem>
#include <iostream>

#include "app/report/CriticalPathReport.h"
#include "app/report/RunReport.h"
#include "profiling/analysis/RunCriticalPath.h"
#include "profiling/trace/RunLoader.h"
#include "profiling/trace/TracePaths.h"

namespace fuselab {

bool isRunArgument(const std::vector<std::string>& paths) {
  return pathsNameRun(std::vector<std::filesystem::path>(paths.begin(), paths.end()));
}

int analyzeRunCommand(const std::vector<std::string>& paths, bool json, const RunAnalysisOptions& options) {
  Run run;
  try {
    std::vector<std::filesystem::path> given(paths.begin(), paths.end());
    run = loadRun(expandRunPaths(given));
  } catch (const std::exception& e) {  // RunLoadError names the file
    std::cerr << "fuselab analyze: " << e.what() << "\n";
    return 1;
  }
  // Skipped files are named on stderr too, so --json's stdout stays JSON alone.
  for (const std::string& w : run.warnings) std::cerr << "fuselab analyze: warning: " << w << "\n";
  // The merge and the path need the aligned collectives only: they run
  // beside the per-rank figures.
  MergedRun merged;
  CriticalPathAnalysis path;
  const RunAnalysis analysis = analyzeRun(run, options, [&](const RunAnalysis& aligned) {
    merged = mergeRun(run, aligned.alignment.offsets_ns);
    path = analyzeRunCriticalPath(aligned, merged);
  });
  if (json) {
    nlohmann::ordered_json j = runJson(run, analysis);
    j["critical_path"] = criticalPathJson(merged.trace, path, merged.trace.beginNs());
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << runText(run, analysis) << "\n";
    writeCriticalPathText(std::cout, merged.trace, path);
  }
  return 0;
}

}  // namespace fuselab
