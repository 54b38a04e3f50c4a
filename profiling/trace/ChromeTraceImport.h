// Import of Chrome trace JSON in the Kineto dialect (what torch.profiler
// writes), .json or .json.gz. See ../shared/DESIGN.md ("ChromeTrace").
//
// The file is read front to back (TraceTextStream: a thread reads and
// inflates ahead) and traceEvents is parsed in windows of about 1 MB with
// simdjson on-demand, so neither the text nor the parser's index is ever held
// whole; a second thread parses the next window while this one builds the
// trace from the last (ChromeImportPipeline.cpp). Each event's "args" object is copied verbatim into the trace's
// args_text and parsed only when asked for (profiling/TraceArgs.h). A file
// whose import would need more memory than the machine has is refused before
// it is read (MemoryBudget.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

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

// The import was cancelled through ImportProgress::cancel.
class TraceImportCancelled : public TraceImportError {
 public:
  using TraceImportError::TraceImportError;
};

// Progress of one import, read by another thread (the window's loader).
struct ImportProgress {
  std::atomic<uint64_t> done{0};   // bytes of the file read so far
  std::atomic<uint64_t> total{0};  // the file's size (compressed, for gzip)
  std::atomic<bool> cancel{false}; // set to stop: the import throws TraceImportCancelled
};

// How an import read its text (for tests and benchmarks).
struct ImportWindowStats {
  size_t windows = 0;          // parse windows committed
  size_t read_ahead = 0;       // of them, parsed ahead on two threads
  size_t ahead_failures = 0;   // windows read ahead whose cuts failed the check
};

struct ChromeImportOptions {
  // Bytes of traceEvents parsed per window (grows for events larger than
  // this). Tests make it small to exercise window boundaries. 1 MB keeps a
  // window's text and parsed events in cache until they are committed; 8 MB
  // took 60 MB more at 1M events (two windows in flight) and no less time.
  size_t window_bytes = size_t(1) << 20;
  // Parse on other threads while this one builds the trace (false: all on
  // this thread). Either way gives the same trace and the same errors.
  bool parallel = true;
  ImportProgress* progress = nullptr;  // optional; must outlive the import
  ImportWindowStats* stats = nullptr;  // optional; filled by the import
  // Null: every event keeps its args. Else only events whose name it
  // accepts do (the others keep what the columns hold: correlation,
  // External id, device, stream); every event's args are still checked. A
  // run whose events are dropped once summarised reads only a few ops' args.
  bool (*keep_args)(std::string_view name) = nullptr;
};

// Reads a .json or .json.gz file (gzip is recognised by its magic bytes, not
// the name). Throws TraceImportError; never returns a partial trace.
Trace importChromeTrace(const std::filesystem::path& path, const ChromeImportOptions& options = {});

// Same for bytes already in memory (JSON text or gzip). `source_name` prefixes
// error messages and becomes meta.source.
Trace importChromeTraceFromBuffer(std::string bytes, std::string source_name,
                                  const ChromeImportOptions& options = {});

}  // namespace fuselab
