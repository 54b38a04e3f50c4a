#include "profiling/trace/TraceFileReader.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "profiling/trace/MemoryBudget.h"
#include "profiling/trace/TraceTextStream.h"

namespace fuselab {

namespace fs = std::filesystem;

uint64_t FilesReadProgress::bytesDone() const {
  uint64_t done = 0;
  for (size_t i = 0, n = fileCount(); i < n; ++i) done += files_[i].done.load();
  return done;
}

std::string FilesReadProgress::text() const {
  return "files read: " + std::to_string(filesDone()) + " of " + std::to_string(fileCount()) + ", " +
         formatBytes(bytesDone()) + " of " + formatBytes(bytesTotal());
}

void FilesReadProgress::cancel() {
  cancel_.store(true);
  for (size_t i = 0, n = fileCount(); i < n; ++i) files_[i].cancel.store(true);
}

// readTraceFiles' side of FilesReadProgress.
class FilesReadProgressWriter {
 public:
  static void start(FilesReadProgress& p, const std::vector<fs::path>& files) {
    p.files_ = std::make_unique<ImportProgress[]>(files.size());
    uint64_t total = 0;
    for (size_t i = 0; i < files.size(); ++i) {
      std::error_code ec;
      const uint64_t size = fs::file_size(files[i], ec);
      p.files_[i].total.store(ec ? 0 : size);
      total += ec ? 0 : size;
    }
    p.bytes_total_.store(total);
    p.count_.store(files.size(), std::memory_order_release);
    if (p.cancel_.load()) p.cancel();  // cancelled before it started
  }
  static ImportProgress* file(FilesReadProgress& p, size_t i) { return &p.files_[i]; }
  static void fileDone(FilesReadProgress& p, size_t i) {
    p.files_[i].done.store(p.files_[i].total.load());
    ++p.files_done_;
  }
};

namespace {

// Memory reserved by the imports in flight: one waits while the others'
// estimates and its own exceed the budget (one import always may run).
class MemoryGate {
 public:
  explicit MemoryGate(uint64_t budget) : budget_(budget) {}
  void acquire(uint64_t bytes) {
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [&] { return in_use_ == 0 || in_use_ + bytes <= budget_; });
    in_use_ += bytes;
  }
  void release(uint64_t bytes) {
    {
      std::lock_guard lock(mutex_);
      in_use_ -= bytes;
    }
    freed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable freed_;
  uint64_t budget_;
  uint64_t in_use_ = 0;
};

}  // namespace

ReadingPlan planReading(size_t files, unsigned cores, uint64_t largest_peak, const TraceFilesReadOptions& options) {
  const auto capped = [&](uint64_t k) {
    return static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>(k, files)));
  };
  if (options.threads) return {capped(options.threads), !options.import.parallel};
  const uint64_t fit = largest_peak ? std::max<uint64_t>(1, options.memory_budget / largest_peak) : files;
  const uint64_t at_once = std::min<uint64_t>({files, cores, fit});
  if (options.import.parallel && at_once >= std::max(2u, cores * 3 / 4)) return {capped(at_once), true};
  return {capped(std::max(2u, cores / 2)), !options.import.parallel};
}

std::vector<std::string> readTraceFiles(const std::vector<fs::path>& files, const TraceFilesReadOptions& options,
                                        const std::function<void(size_t, Trace&&)>& use) {
  const size_t n = files.size();
  FilesReadProgress own_progress;
  FilesReadProgress& progress = options.progress ? *options.progress : own_progress;
  FilesReadProgressWriter::start(progress, files);
  std::vector<uint64_t> peaks(n);
  for (size_t i = 0; i < n; ++i)
    peaks[i] = importPeakEstimate(traceTextSizeHint(files[i]), options.import.keep_args == nullptr);
  const ReadingPlan plan = planReading(n, std::max(1u, std::thread::hardware_concurrency()),
                                       n ? *std::max_element(peaks.begin(), peaks.end()) : 0, options);
  MemoryGate gate(options.memory_budget);
  std::vector<std::string> errors(n);
  std::vector<std::exception_ptr> failed(n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < n && !progress.cancelled(); i = next++) {
      gate.acquire(peaks[i]);
      std::optional<Trace> trace;
      try {
        ChromeImportOptions import = options.import;
        import.parallel = !plan.parse_alone;
        import.progress = FilesReadProgressWriter::file(progress, i);
        trace = importChromeTrace(files[i], import);
      } catch (const TraceImportCancelled&) {
      } catch (const std::exception& e) {
        errors[i] = "cannot read " + files[i].string() + ": " + e.what();
      }
      try {
        if (trace) use(i, std::move(*trace));
      } catch (...) {
        failed[i] = std::current_exception();
      }
      gate.release(peaks[i]);
      FilesReadProgressWriter::fileDone(progress, i);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < plan.threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (progress.cancelled()) throw TraceImportCancelled("reading the files was cancelled");
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
  return errors;
}

}  // namespace fuselab
