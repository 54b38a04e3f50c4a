// Export of a Trace as Chrome trace JSON in the Kineto dialect, readable by
// Perfetto, chrome://tracing, HTA and fuselab's importer. See
// ../shared/DESIGN.md ("Export conventions").
//
// Layout: schemaVersion, deviceProperties, the source's other top-level
// fields, baseTimeNanoseconds, traceEvents, traceName. ts/dur are microseconds
// with three decimals relative to baseTimeNanoseconds (exact to the ns).
// Events keep their args verbatim; an event without args gets only the
// fields its columns hold (correlation, External id, and device/stream on GPU
// ops) so that other tools can still join launches to kernels. Launch -> GPU
// flows are written from the correlation column (ph s/f, cat "ac2g", id =
// correlation, "bp":"e" on the finish); other flows and raw events follow.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

#include "profiling/trace/Trace.h"

namespace fuselab {

class TraceExportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ExportOptions {
  bool gzip = false;  // also implied by a path ending in ".gz"
  int gzip_level = 6;
};

// Writes atomically (temporary file + rename): on any error the target is
// left as it was. Throws TraceExportError or FileWriteError.
void exportChromeTrace(const Trace& trace, const std::filesystem::path& path, ExportOptions options = {});

// The JSON text (uncompressed).
std::string exportChromeTraceToString(const Trace& trace);

}  // namespace fuselab
