// Chrome trace import: the entry points (a file or bytes in memory, gzip or
// not) and Importer::run, which drives the phases (see ChromeTraceImporter.h).
#include "profiling/trace/ChromeTraceImport.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "profiling/trace/ChromeTraceImporter.h"
#include "profiling/trace/Gzip.h"
#include "profiling/trace/HugePages.h"

namespace fuselab {

namespace chrome_import {

Trace Importer::run() {
  n_ = buf_->size();
  const std::string& b = *buf_;
  size_t first = 0;
  if (n_ >= 3 && b.compare(0, 3, "\xEF\xBB\xBF") == 0) first = 3;  // UTF-8 byte order mark
  while (first < n_ && isJsonSpace(b[first])) ++first;
  if (n_ == 0) throw TraceImportError(source_ + ": the file is empty");
  if (first == n_) throw TraceImportError(source_ + ": the file contains only whitespace");
  if (b[first] == '{') {
    form_ = Form::Object;
  } else if (b[first] == '[') {
    form_ = Form::Array;
  } else {
    throw TraceImportError(source_ + ": " + where(first) + ": not a trace: expected '{' or '[' but found " +
                           (static_cast<unsigned char>(b[first]) >= 0x20 && static_cast<unsigned char>(b[first]) < 0x7f
                                ? "'" + std::string(1, b[first]) + "'"
                                : "byte 0x" + [&] {
                                    char hex[4];
                                    std::snprintf(hex, sizeof(hex), "%02x", static_cast<unsigned char>(b[first]));
                                    return std::string(hex);
                                  }()));
  }
  if (form_ == Form::Array) saw_events_array_ = true;

  try {
    // The head window; it grows until at least one event (or everything) fits.
    bool head = true;
    size_t start = 0;
    resume_at_ = first + 1;
    while (true) {
      WindowState saved = saveState();
      Outcome o = parseWindow(start, head);
      if (o == Outcome::Done) break;
      if (o == Outcome::Grow) {
        // Not even one event fitted: forget what the window read, retry larger.
        restoreState(std::move(saved));
        if (window_bytes_ >= n_) throw TraceImportError(source_ + ": internal error: the parse window cannot grow");
        window_bytes_ = std::min(n_, window_bytes_ * 2);
        continue;
      }
      // Continue after the last committed event.
      head = false;
      start = resume_at_;
    }
    events_array_done_ = true;
    finish();
  } catch (const SemanticError& e) {
    throw TraceImportError(source_ + ": " + e.message);
  }
  trace_.meta.source = source_;
  trace_.args_text = buf_;
  return std::move(trace_);
}

}  // namespace chrome_import

Trace importChromeTraceFromBuffer(std::string bytes, std::string source_name, const ChromeImportOptions& options) {
  if (looksGzipped(bytes)) {
    try {
      bytes = gunzip(bytes, simdjson::SIMDJSON_PADDING);
    } catch (const GzipError& e) {
      throw TraceImportError(source_name + ": " + e.what());
    }
  }
  chrome_import::Importer importer(std::move(bytes), std::move(source_name), options);
  return importer.run();
}

Trace importChromeTrace(const std::filesystem::path& path, const ChromeImportOptions& options) {
  std::string name = path.string();
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw TraceImportError(name + ": cannot open: " + std::strerror(errno));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(file, &std::fclose);
  struct stat st {};
  if (::fstat(::fileno(file), &st) != 0) throw TraceImportError(name + ": cannot read its size: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw TraceImportError(name + ": not a regular file");
  auto size = static_cast<size_t>(st.st_size);
  std::string bytes;
  try {
    bytes.reserve(size + simdjson::SIMDJSON_PADDING);
    adviseHugePages(bytes.data(), bytes.capacity());
    bytes.resize(size);
  } catch (const std::bad_alloc&) {
    throw TraceImportError(name + ": not enough memory to read " + std::to_string(size) + " bytes");
  }
  size_t got = std::fread(bytes.data(), 1, size, file);
  if (got != size) throw TraceImportError(name + ": read " + std::to_string(got) + " of " + std::to_string(size) + " bytes");
  if (looksGzipped(bytes)) {
    try {
      std::string text = gunzip(bytes, simdjson::SIMDJSON_PADDING);
      bytes = std::string();  // free the compressed bytes before parsing
      bytes = std::move(text);
    } catch (const GzipError& e) {
      throw TraceImportError(name + ": " + e.what());
    }
  }
  chrome_import::Importer importer(std::move(bytes), std::move(name), options);
  return importer.run();
}

}  // namespace fuselab
