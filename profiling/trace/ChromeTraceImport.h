// Import of Chrome trace JSON in the Kineto dialect (what torch.profiler
// writes), .json or .json.gz. See ../shared/DESIGN.md ("ChromeTrace").
//
// The whole (decompressed) file becomes the trace's args_text; each event's
// ArgsRef points at its raw "args" object there, so arguments are parsed only
// when asked for (profiling/TraceArgs.h) and memory stays near the file size.
// traceEvents is parsed in windows of a few MB with simdjson on-demand, so the
// parser's index never grows with the file.
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "profiling/trace/Trace.h"

namespace fuselab {

// Malformed or unreadable input. The message says what is wrong and where:
// the source name, then a byte offset into the (decompressed) JSON and/or
// the event index, e.g. "mlp.json: traceEvents[17] (byte 5123): 'dur' is a
// string, expected a number".
class TraceImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ChromeImportOptions {
  // Bytes of traceEvents parsed per window (grows for events larger than
  // this). Tests make it small to exercise window boundaries.
  size_t window_bytes = size_t(8) << 20;
};

// Reads a .json or .json.gz file (gzip is recognised by its magic bytes, not
// the name). Throws TraceImportError; never returns a partial trace.
Trace importChromeTrace(const std::filesystem::path& path, const ChromeImportOptions& options = {});

// Same for bytes already in memory (JSON text or gzip). `source_name` prefixes
// error messages and becomes meta.source.
Trace importChromeTraceFromBuffer(std::string bytes, std::string source_name,
                                  const ChromeImportOptions& options = {});

}  // namespace fuselab
