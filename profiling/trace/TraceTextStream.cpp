#include "profiling/trace/TraceTextStream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/Gzip.h"

namespace fuselab {

namespace {
constexpr size_t kChunk = size_t(4) << 20;  // text per chunk
constexpr size_t kAhead = 4;                // gzip: chunks inflated ahead of the parser

// The text size of `size` bytes of gzip whose last four bytes are `tail`
// (the trailer's size field, little-endian).
uint64_t gzipTrailerHint(uint64_t size, const char* tail) {
  const auto* p = reinterpret_cast<const unsigned char*>(tail);
  return gzipSizeHint(size, uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24));
}

// The text size of an open file of `size` bytes: the size, or for gzip
// (told by its magic bytes, `gzipped` set) its trailer's hint.
uint64_t textSizeHintOf(int fd, uint64_t size, bool* gzipped) {
  char head[2] = {0, 0}, tail[4] = {0, 0, 0, 0};
  *gzipped = ::pread(fd, head, 2, 0) == 2 && looksGzipped(std::string_view(head, 2));
  if (*gzipped && size >= 18 && ::pread(fd, tail, 4, off_t(size - 4)) == 4) return gzipTrailerHint(size, tail);
  return size;
}
}  // namespace

uint64_t traceTextSizeHint(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st {};
  uint64_t hint = 0;
  bool gzipped = false;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) hint = textSizeHintOf(fd, uint64_t(st.st_size), &gzipped);
  ::close(fd);
  return hint;
}

struct TraceTextStream::Inflate {
  GzipInflater inflater;
  std::string input;      // compressed bytes read from the file, not yet inflated
  size_t input_used = 0;  // of `input`
  bool input_done = false;
};

TraceTextStream::TraceTextStream(const std::filesystem::path& path, std::string name) : name_(std::move(name)) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw TraceImportError(name_ + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    int err = errno;
    ::close(fd_);
    throw TraceImportError(name_ + ": cannot read its size: " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw TraceImportError(name_ + ": not a regular file");
  }
  source_bytes_ = uint64_t(st.st_size);
  opened_mtime_ns_ = int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  text_hint_ = textSizeHintOf(fd_, source_bytes_, &gzipped_);
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  start();
}

TraceTextStream::TraceTextStream(std::string bytes, std::string name) : name_(std::move(name)), bytes_(std::move(bytes)) {
  source_bytes_ = bytes_.size();
  gzipped_ = looksGzipped(bytes_);
  text_hint_ = gzipped_ && bytes_.size() >= 18 ? gzipTrailerHint(source_bytes_, bytes_.data() + bytes_.size() - 4)
                                                : source_bytes_;
  start();
}

void TraceTextStream::start() {
  if (!gzipped_) return;  // plain text is read by next() itself
  inflate_ = new Inflate;
  thread_ = std::thread([this] { produce(); });
}

TraceTextStream::~TraceTextStream() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  delete inflate_;
  if (fd_ >= 0) ::close(fd_);
}

uint64_t TraceTextStream::sourceBytesRead() const { return progress_.load(std::memory_order_relaxed); }

namespace {
template <typename Buffer>
void appendBytes(Buffer& to, std::string_view bytes) {
  const size_t at = to.size();
  to.resize(at + bytes.size());
  if (!bytes.empty()) std::memcpy(to.data() + at, bytes.data(), bytes.size());  // data() may be null when empty
}
}  // namespace

template <typename Buffer>
size_t TraceTextStream::readRaw(Buffer& to, size_t want) {
  if (fd_ < 0) {
    const size_t n = std::min<size_t>(want, bytes_.size() - source_pos_);
    appendBytes(to, std::string_view(bytes_).substr(source_pos_, n));
    source_pos_ += n;
    return n;
  }
  const size_t at = to.size();
  to.resize(at + want);
  size_t got = 0;
  while (got < want) {
    ssize_t r = ::pread(fd_, to.data() + at + got, want - got, off_t(source_pos_ + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      to.resize(at + got);
      throw TraceImportError(name_ + ": read failed at byte " + std::to_string(source_pos_ + got) + ": " +
                             std::strerror(errno));
    }
    if (r == 0) break;
    got += size_t(r);
  }
  to.resize(at + got);
  source_pos_ += got;
  return got;
}

bool TraceTextStream::inflateChunk(std::string& out) {
  Inflate& g = *inflate_;
  while (out.size() < kChunk) {
    if (g.input_used == g.input.size() && !g.input_done) {
      g.input.clear();
      g.input_used = 0;
      g.input_done = readRaw(g.input, kChunk / 4) == 0;
      if (g.input_done) checkUnchanged();
    }
    std::string_view in(g.input.data() + g.input_used, g.input.size() - g.input_used);
    bool more;
    try {
      more = g.inflater.inflateSome(in, g.input_done, out, kChunk - out.size());
    } catch (const GzipError& e) {
      throw TraceImportError(name_ + ": " + e.what());
    }
    g.input_used = g.input.size() - in.size();
    if (!more) break;
  }
  return !out.empty();
}

void TraceTextStream::checkUnchanged() const {
  if (fd_ < 0) return;
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return;
  const int64_t mtime_ns = int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  if (source_pos_ == source_bytes_ && uint64_t(st.st_size) == source_bytes_ && mtime_ns == opened_mtime_ns_) return;
  throw TraceImportError(name_ + ": the file changed while it was being read (" + std::to_string(source_bytes_) +
                         " bytes when opened, " + std::to_string(source_pos_) + " read, " + std::to_string(st.st_size) +
                         " now); open it again once it is complete");
}

void TraceTextStream::produce() {
  try {
    while (true) {
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stop_ || ready_.size() < kAhead; });
        if (stop_) return;
      }
      std::string chunk;
      chunk.reserve(kChunk);
      bool more = inflateChunk(chunk);
      {
        std::lock_guard lock(mutex_);
        progress_.store(source_pos_, std::memory_order_relaxed);
        if (more) ready_.push_back(std::move(chunk));
        else finished_ = true;
      }
      changed_.notify_all();
      if (!more) return;
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    error_ = std::current_exception();
    finished_ = true;
  }
  changed_.notify_all();
}

bool TraceTextStream::next(TextBuffer& out) {
  if (!gzipped_) {
    // The chunk after this one is asked for now, so that a file not yet in
    // the page cache is read from disk while this chunk is parsed.
    if (fd_ >= 0) ::posix_fadvise(fd_, off_t(source_pos_ + kChunk), off_t(kChunk), POSIX_FADV_WILLNEED);
    const bool more = readRaw(out, kChunk) > 0;
    progress_.store(source_pos_, std::memory_order_relaxed);
    if (!more) checkUnchanged();
    return more;
  }
  std::string chunk;
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !ready_.empty() || finished_; });
    if (ready_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return false;
    }
    chunk = std::move(ready_.front());
    ready_.pop_front();
  }
  changed_.notify_all();
  appendBytes(out, chunk);
  return true;
}

}  // namespace fuselab
