#include "profiling/analysis/run/TraceOrRun.h"

#include "profiling/trace/TracePaths.h"

namespace fuselab {

OpenedTraceOrRun openTraceOrRun(const std::vector<std::filesystem::path>& paths, const OpenOptions& options) {
  OpenedTraceOrRun out;
  if (pathsNameRun(paths)) {
    RunStreamOptions stream;
    stream.analysis = options.run;
    stream.reading.import = options.import;
    stream.reading.import.progress = nullptr;
    stream.reading.progress = options.run_progress;
    stream.keep = options.allow_dropped_events ? KeepEvents::WhenTheyFit : KeepEvents::Required;
    auto view = std::make_shared<const RunView>(openRunView(paths, stream));
    out.trace = view->merged.trace;
    out.run = std::move(view);
  } else {
    out.trace = std::make_shared<const Trace>(importChromeTrace(paths.front(), options.import));
  }
  return out;
}

}  // namespace fuselab
