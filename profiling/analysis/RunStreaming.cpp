#include "profiling/analysis/RunStreaming.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "profiling/trace/FreedMemory.h"
#include "profiling/trace/MemoryBudget.h"
#include "profiling/trace/TraceTextStream.h"

namespace fuselab {

namespace fs = std::filesystem;

uint64_t RunStreamProgress::bytesDone() const {
  uint64_t done = 0;
  for (size_t i = 0, n = rankCount(); i < n; ++i) done += files_[i].done.load();
  return done;
}

void RunStreamProgress::cancel() {
  cancel_.store(true);
  for (size_t i = 0, n = rankCount(); i < n; ++i) files_[i].cancel.store(true);
}

// streamRun's side of RunStreamProgress.
class RunStreamProgressWriter {
 public:
  static void start(RunStreamProgress& p, const std::vector<fs::path>& files) {
    p.files_ = std::make_unique<ImportProgress[]>(files.size());
    uint64_t total = 0;
    for (size_t i = 0; i < files.size(); ++i) {
      std::error_code ec;
      const auto size = fs::file_size(files[i], ec);
      p.files_[i].total.store(ec ? 0 : size);
      total += ec ? 0 : size;
    }
    p.bytes_total_.store(total);
    p.count_.store(files.size(), std::memory_order_release);
    if (p.cancel_.load()) p.cancel();  // cancelled before it started
  }
  static ImportProgress* file(RunStreamProgress& p, size_t i) { return &p.files_[i]; }
  static void rankDone(RunStreamProgress& p, size_t i) {
    p.files_[i].done.store(p.files_[i].total.load());
    ++p.ranks_done_;
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

struct RankRead {
  std::optional<RankTrace> rank;
  RankSummary summary;
  std::string error;         // the file could not be read: skipped
  std::exception_ptr fatal;  // the run cannot open (RunLoadError)
};

// The trace without its events: what a run keeps of a rank it cannot hold.
void dropEvents(RankTrace& r) {
  Trace meta_only;
  meta_only.meta = std::move(r.trace.meta);
  r.trace = std::move(meta_only);
  r.events_dropped = true;
  returnFreedMemory();
}

}  // namespace

uint64_t streamingImportBudget(uint64_t memory_bytes) { return memory_bytes / 8; }

bool runFitsInMemory(uint64_t import_peak_total, uint64_t memory_bytes) { return import_peak_total <= memory_bytes / 2; }

StreamedRun streamRun(const std::vector<fs::path>& files, const RunStreamOptions& options) {
  if (files.empty()) throw RunLoadError("no trace files given");
  const size_t n = files.size();
  RunStreamProgress own_progress;
  RunStreamProgress& progress = options.progress ? *options.progress : own_progress;
  RunStreamProgressWriter::start(progress, files);

  StreamedRun out;
  std::vector<uint64_t> peaks(n);
  uint64_t peak_total = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t text = traceTextSizeHint(files[i]);
    out.json_bytes += text;
    peak_total += peaks[i] = importPeakEstimate(text);
  }
  const auto available = availableMemory();
  const uint64_t memory = options.memory_bytes ? *options.memory_bytes : available ? available->bytes : UINT64_MAX;
  out.memory_bytes = memory;
  const bool fits = runFitsInMemory(peak_total, memory);
  const std::string too_large = "the ranks' events would take about " + formatBytes(peak_total) + " of the " +
                                formatBytes(memory) + " available";
  if (options.keep == KeepEvents::Required && !fits)
    throw RunLoadError("this needs every rank's events in memory, but " + too_large +
                       " (the window and `fuselab analyze` open runs this large)");
  out.events_kept = options.keep == KeepEvents::Always || options.keep == KeepEvents::Required ||
                    (options.keep == KeepEvents::WhenTheyFit && fits);
  if (!out.events_kept)
    out.dropped_reason = options.keep == KeepEvents::Never
                             ? "each rank's events were dropped once summarised, as asked"
                             : too_large + ": each rank's events were dropped once summarised";
  MemoryGate gate(out.events_kept ? UINT64_MAX : streamingImportBudget(memory));

  std::vector<RankRead> reads(n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < n && !progress.cancelled(); i = next++) {
      gate.acquire(peaks[i]);
      RankRead& read = reads[i];
      try {
        ChromeImportOptions import = options.import;
        import.progress = RunStreamProgressWriter::file(progress, i);
        RankTrace r = rankTraceOf(files[i], importChromeTrace(files[i], import), n);
        read.summary = summarizeRank(r, options.analysis.trace);
        if (!out.events_kept) dropEvents(r);
        read.rank = std::move(r);
      } catch (const TraceImportCancelled&) {
      } catch (const RunLoadError&) {
        read.fatal = std::current_exception();
      } catch (const std::exception& e) {
        read.error = "cannot read " + files[i].string() + ": " + e.what();
      }
      gate.release(peaks[i]);
      RunStreamProgressWriter::rankDone(progress, i);
    }
  };
  // Each import parses on a second thread of its own: half as many ranks as cores.
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency() / 2);
  threads = static_cast<unsigned>(std::min<size_t>(threads, n));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (progress.cancelled()) throw TraceImportCancelled("opening the run was cancelled");
  for (const RankRead& read : reads)
    if (read.fatal) std::rethrow_exception(read.fatal);

  std::vector<RankTrace> ranks;
  std::vector<std::string> errors;
  std::map<std::string, RankSummary> summary_of_file;
  for (RankRead& read : reads) {
    if (!read.rank) {
      errors.push_back(std::move(read.error));
      continue;
    }
    summary_of_file.emplace(read.rank->file, std::move(read.summary));
    ranks.push_back(std::move(*read.rank));
  }
  auto run = std::make_shared<Run>(assembleRun(std::move(ranks), std::move(errors), n));
  std::vector<RankSummary> summaries;
  summaries.reserve(run->ranks.size());
  for (const RankTrace& r : run->ranks) summaries.push_back(std::move(summary_of_file.at(r.file)));
  out.analysis = analyzeRunSummaries(*run, std::move(summaries), options.analysis);
  out.run = std::move(run);
  return out;
}

}  // namespace fuselab
