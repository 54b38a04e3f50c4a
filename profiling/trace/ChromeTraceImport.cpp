// Chrome trace import: the entry points (a file or bytes in memory, gzip or
// not) and Importer::run: the head of the file, then the windows
// (ChromeImportPipeline.cpp), then the finish (see ChromeTraceImporter.h).
#include "profiling/trace/ChromeTraceImport.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "profiling/trace/ChromeTraceImporter.h"
#include "profiling/trace/FreedMemory.h"
#include "profiling/trace/Gzip.h"
#include "profiling/trace/MemoryBudget.h"

namespace fuselab {

namespace chrome_import {

size_t TextArena::add(std::string_view s) {
  const size_t block = size_t(1) << kShift;
  if (s.size() > block) throw SemanticError{"an event larger than " + std::to_string(block) + " bytes", 0};
  if (blocks_.empty() || used_ + s.size() > block) {
    blocks_.emplace_back();
    blocks_.back().reserve(block);
    used_ = 0;
  }
  size_t at = ((blocks_.size() - 1) << kShift) + used_;
  blocks_.back().append(s);
  used_ += s.size();
  return at;
}

size_t Importer::fill(size_t end) {
  while (!at_eof_ && text_base_ + text_.size() < end) {
    if (stop_.load(std::memory_order_relaxed)) throw Stopped{};
    if (progress_ && progress_->cancel.load(std::memory_order_relaxed))
      throw TraceImportCancelled(source_ + ": cancelled");
    if (!stream_.next(text_)) {
      at_eof_ = true;
      n_ = text_base_ + text_.size();
    }
    reportProgress();
  }
  return text_base_ + text_.size();
}

void Importer::forgetBefore(size_t offset) {
  // Drop the front once it is a good part of the buffer (amortised moves).
  size_t drop = offset - text_base_;
  if (drop < (size_t(4) << 20) || drop < text_.size() / 2) return;
  text_.erase(text_.begin(), text_.begin() + std::ptrdiff_t(drop));
  text_base_ = offset;
}

void Importer::reportProgress() {
  uint64_t read = text_base_ + text_.size();
  if (memory_limit_ && importPeakEstimate(read, keep_args_ == nullptr) > memory_limit_)
    throw TraceImportError(source_ + ": too large to open here: " + formatBytes(read) +
                           " of JSON read so far, and opening it would need more than the " +
                           formatBytes(memory_limit_) + " of memory available");
  if (!progress_) return;
  progress_->done.store(stream_.sourceBytesRead(), std::memory_order_relaxed);
  if (progress_->cancel.load(std::memory_order_relaxed)) throw TraceImportCancelled(source_ + ": cancelled");
}

Trace Importer::run() {
  size_t first = 0;
  fill(3);
  if (text_.size() >= 3 && textAt(0, 3) == "\xEF\xBB\xBF") first = 3;  // UTF-8 byte order mark
  while (first < fill(first + 1) && isJsonSpace(at(first))) ++first;
  if (n_ == 0) throw TraceImportError(source_ + ": the file is empty");
  if (first == n_) throw TraceImportError(source_ + ": the file contains only whitespace");
  char c = at(first);
  if (c == '{') {
    form_ = Form::Object;
  } else if (c == '[') {
    form_ = Form::Array;
  } else {
    throw TraceImportError(source_ + ": " + where(first) + ": not a trace: expected '{' or '[' but found " +
                           (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f
                                ? "'" + std::string(1, c) + "'"
                                : "byte 0x" + [&] {
                                    char hex[4];
                                    std::snprintf(hex, sizeof(hex), "%02x", static_cast<unsigned char>(c));
                                    return std::string(hex);
                                  }()));
  }
  if (form_ == Form::Array) saw_events_array_ = true;
  // Args are copied out as they are read; reserving the text's size costs
  // address space only and means the store never moves while it grows.
  trace_.args_text->reserve(stream_.textSizeHint());

  try {
    resume_at_ = first + 1;
    if (parallel_) commitAll();
    else readAll();
    for (Slot& s : slots_) s = Slot();  // their parsers and texts
    trace_.meta = std::move(meta_);
    finish();
  } catch (const SemanticError& e) {
    throw TraceImportError(source_ + ": " + e.message);
  }
  trace_.meta.source = source_;
  return std::move(trace_);
}

}  // namespace chrome_import

namespace {

Trace importStream(TraceTextStream& stream, std::string name, const ChromeImportOptions& options) {
  uint64_t limit = 0;
  if (auto avail = availableMemory()) {
    uint64_t need = importPeakEstimate(stream.textSizeHint(), options.keep_args == nullptr);
    if (need > avail->bytes)
      throw TraceImportError(name + ": too large to open here: " + formatBytes(stream.textSizeHint()) +
                             " of JSON would need about " + formatBytes(need) + " of memory, but " +
                             formatBytes(avail->bytes) + " is available (" + avail->source +
                             "). Close other programs or open it on a machine with more memory.");
    limit = avail->bytes;
  }
  if (options.progress) options.progress->total.store(stream.sourceBytes());
  Trace trace = chrome_import::Importer(stream, std::move(name), options, limit).run();
  returnFreedMemory();  // the importer's (0.4 GB at 10M events), before anything runs on the trace
  if (options.progress) options.progress->done.store(stream.sourceBytes());
  return trace;
}

}  // namespace

Trace importChromeTraceFromBuffer(std::string bytes, std::string source_name, const ChromeImportOptions& options) {
  TraceTextStream stream(std::move(bytes), source_name);
  return importStream(stream, std::move(source_name), options);
}

Trace importChromeTrace(const std::filesystem::path& path, const ChromeImportOptions& options) {
  std::string name = path.string();
  TraceTextStream stream(path, name);
  return importStream(stream, std::move(name), options);
}

}  // namespace fuselab
