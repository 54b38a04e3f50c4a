#include "app/cli/AnalyzeRun.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <iostream>
#include <optional>

#include "app/report/CriticalPathReport.h"
#include "app/report/RunReport.h"
#include "profiling/analysis/run/RunCriticalPath.h"
#include "profiling/analysis/run/RunStreaming.h"
#include "profiling/trace/TracePaths.h"

namespace fuselab {

namespace {

// The rank files and bytes read so far on one terminal line, redrawn every
// half second while `done` is not ready.
void showProgress(const FilesReadProgress& p, std::future<StreamedRun>& done) {
  using namespace std::chrono_literals;
  bool shown = false;
  while (done.wait_for(500ms) != std::future_status::ready) {
    std::fprintf(stderr, "\rfuselab analyze: rank %s   ", p.text().c_str());
    shown = true;
  }
  if (shown) std::fputs("\n", stderr);
}

}  // namespace

bool isRunArgument(const std::vector<std::string>& paths) {
  return pathsNameRun(std::vector<std::filesystem::path>(paths.begin(), paths.end()));
}

int analyzeRunCommand(const std::vector<std::string>& paths, bool json, const RunAnalysisOptions& options) {
  StreamedRun streamed;
  try {
    std::vector<std::filesystem::path> given(paths.begin(), paths.end());
    RunStreamOptions stream;
    stream.analysis = options;
    stream.critical_path_parts = true;
    FilesReadProgress progress;
    stream.reading.progress = &progress;
    auto files = expandRunPaths(given);
    std::future<StreamedRun> done = std::async(std::launch::async, [&] { return streamRun(files, stream); });
    if (::isatty(STDERR_FILENO)) showProgress(progress, done);
    streamed = done.get();
  } catch (const std::exception& e) {  // RunLoadError names the file
    std::cerr << "fuselab analyze: " << e.what() << "\n";
    return 1;
  }
  const Run& run = *streamed.run;
  const RunAnalysis& analysis = streamed.analysis;
  // Skipped files are named on stderr too, so --json's stdout stays JSON alone.
  for (const std::string& w : run.warnings) std::cerr << "fuselab analyze: warning: " << w << "\n";
  // The critical path crosses every rank's events: only when they were kept.
  // It is read against the ranks' own traces (no merge), or, where their
  // parts do not join, over their merge.
  MergedRun merged;
  std::optional<PathTraces> traces;
  CriticalPathAnalysis path;
  std::string path_skipped;
  if (streamed.eventsKept()) {
    if (auto p = runCriticalPath(run, analysis, streamed.path_parts)) {
      path = std::move(*p);
      traces.emplace(run, analysis.alignment.offsets_ns);
    } else {
      merged = mergeRun(run, analysis.alignment.offsets_ns);
      path = analyzeRunCriticalPath(analysis, merged);
    }
  } else {
    path_skipped = "the critical path needs every rank's events in memory: " + streamed.dropped_reason;
    std::cerr << "fuselab analyze: " << path_skipped << "\n";
  }
  if (!traces) traces.emplace(*merged.trace);
  if (json) {
    nlohmann::ordered_json j = runJson(run, analysis);
    j["critical_path"] = criticalPathJson(*traces, path, traces->beginNs());
    if (!path_skipped.empty()) j["critical_path"]["skipped"] = path_skipped;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << runText(run, analysis) << "\n";
    if (path_skipped.empty()) writeCriticalPathText(std::cout, *traces, path);
    else std::cout << "Critical path: skipped: " << path_skipped << "\n";
  }
  return 0;
}

}  // namespace fuselab
