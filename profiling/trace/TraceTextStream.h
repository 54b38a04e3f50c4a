// The text of a trace file read front to back in chunks: plain JSON, or
// gzip decompressed on the fly. Plain JSON is read straight into the
// caller's buffer, the kernel asked for the next chunk ahead of time; gzip is
// inflated a few chunks ahead on a thread of its own, so that a .json.gz
// uses two cores. Neither the compressed file nor the whole text is ever held
// in memory at once.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

#include "profiling/trace/UninitializedVector.h"

namespace fuselab {

// The text size of a trace file as TraceTextStream::textSizeHint() tells it,
// without reading it; 0 when it cannot be opened.
uint64_t traceTextSizeHint(const std::filesystem::path& path);

// Text read from a stream: grows without writing the bytes it is about to
// receive (a std::string would write each chunk twice, once with zeros).
using TextBuffer = UninitializedVector<char>;

class TraceTextStream {
 public:
  // Opens `path` (gzip is recognised by its magic bytes). Throws
  // TraceImportError naming `name` when the file cannot be opened.
  TraceTextStream(const std::filesystem::path& path, std::string name);
  // Bytes already in memory (JSON text or gzip).
  TraceTextStream(std::string bytes, std::string name);
  ~TraceTextStream();  // stops the inflating thread
  TraceTextStream(const TraceTextStream&) = delete;
  TraceTextStream& operator=(const TraceTextStream&) = delete;

  // Appends the next chunk of text to `out`; false at the end. Throws
  // TraceImportError (read errors, corrupt gzip).
  bool next(TextBuffer& out);

  bool gzipped() const { return gzipped_; }
  uint64_t sourceBytes() const { return source_bytes_; }  // file size (compressed for gzip)
  uint64_t sourceBytesRead() const;                        // progress, of sourceBytes()
  // The text's size: exact for plain JSON, gzipSizeHint() for gzip.
  uint64_t textSizeHint() const { return text_hint_; }

 private:
  void start();
  void produce();  // the inflating thread
  // Appends up to `want` plain bytes of the source to `to`; returns how many.
  template <typename Buffer>
  size_t readRaw(Buffer& to, size_t want);
  bool inflateChunk(std::string& out);  // one chunk of text; false at the end
  // At the end of the file: throws TraceImportError when its size or time
  // changed since it was opened (a trace still being written, a rank file
  // replaced while a run loads), or when fewer bytes were read than it had.
  void checkUnchanged() const;

  std::string name_;
  int fd_ = -1;
  std::string bytes_;       // the source when it came from memory
  uint64_t source_pos_ = 0;  // bytes of the source consumed (by next(), or the inflating thread)
  bool gzipped_ = false;
  uint64_t source_bytes_ = 0, text_hint_ = 0;
  int64_t opened_mtime_ns_ = 0;
  struct Inflate;
  Inflate* inflate_ = nullptr;

  std::thread thread_;
  std::mutex mutex_;  // the inflating thread's state below: ready_, finished_, stop_, error_
  std::condition_variable changed_;
  std::deque<std::string> ready_;
  bool finished_ = false, stop_ = false;
  std::exception_ptr error_;
  std::atomic<uint64_t> progress_{0};
};

}  // namespace fuselab
