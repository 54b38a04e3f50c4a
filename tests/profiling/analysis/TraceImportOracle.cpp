#include "tests/profiling/analysis/TraceImportOracle.h"

#include <exception>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/ChromeTraceExport.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/TraceArgs.h"

namespace fuselab::test {

namespace {
// Small windows so window boundaries are crossed by small inputs too.
ChromeImportOptions smallWindows() {
  ChromeImportOptions o;
  o.window_bytes = 4096;
  return o;
}
}  // namespace

std::optional<std::string> checkTraceImport(std::string bytes) {
  Trace trace;
  try {
    trace = importChromeTraceFromBuffer(std::move(bytes), "input", smallWindows());
  } catch (const TraceImportError&) {
    return std::nullopt;  // rejected with a message: what bad input must get
  } catch (const std::exception& e) {
    return std::string("import threw something other than TraceImportError: ") + e.what();
  }
  std::string exported;
  try {
    analyzeTrace(trace, AnalysisOptions{});
    for (size_t t = 0; t < trace.tracks.size(); ++t)
      for (size_t i = 0; i < trace.tracks[t].size() && i < 64; ++i)
        (void)argsForDisplay(trace, EventRef{uint32_t(t), uint32_t(i)});
    exported = exportChromeTraceToString(trace);
  } catch (const std::exception& e) {
    return std::string("analysis or export of an accepted trace threw: ") + e.what();
  }
  Trace again;
  try {
    again = importChromeTraceFromBuffer(std::move(exported), "re-import", smallWindows());
  } catch (const std::exception& e) {
    return std::string("fuselab's own export did not import again: ") + e.what();
  }
  std::string why;
  if (!again.sameContentAs(trace, &why)) return "export then import changed the trace: " + why;
  return std::nullopt;
}

}  // namespace fuselab::test
