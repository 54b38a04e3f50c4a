#include "profiling/analysis/TraceOrRun.h"

#include "profiling/trace/TracePaths.h"

namespace fuselab {

OpenedTraceOrRun openTraceOrRun(const std::vector<std::filesystem::path>& paths, const OpenOptions& options) {
  OpenedTraceOrRun out;
  if (pathsNameRun(paths)) {
    auto view = std::make_shared<const RunView>(openRunView(paths, options.run));
    out.trace = std::shared_ptr<const Trace>(view, &view->merged.trace);
    out.run = std::move(view);
  } else {
    out.trace = std::make_shared<const Trace>(importChromeTrace(paths.front(), options.import));
  }
  return out;
}

}  // namespace fuselab
