// One entry from paths to what they name (TracePaths.h's rule): one trace
// file, or a run (a folder, or several files: its ranks loaded, analysed and
// merged on the aligned axis, RunView.h). The commands, the window and the
// tutorial open what a user names through it.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "profiling/analysis/run/RunView.h"
#include "profiling/trace/ChromeTraceImport.h"

namespace fuselab {

struct OpenedTraceOrRun {
  std::shared_ptr<const Trace> trace;  // the trace, or the run's merged trace (kept alive by `run`)
  std::shared_ptr<const RunView> run;  // set for a run
};

struct OpenOptions {
  RunAnalysisOptions run;      // a run's analysis
  ChromeImportOptions import;  // one trace's import (progress, cancel); a run's imports (window size)
  FilesReadProgress* run_progress = nullptr;  // a run's progress and cancel
  // A run too large to hold opens with its events dropped (RunView.h);
  // false: it is refused, for callers that need the merged trace whole.
  bool allow_dropped_events = false;
};

// `paths` not empty. Throws TraceImportError (or TraceImportCancelled) for a
// trace, RunLoadError (or TraceImportCancelled) for a run.
OpenedTraceOrRun openTraceOrRun(const std::vector<std::filesystem::path>& paths, const OpenOptions& options = {});

}  // namespace fuselab
