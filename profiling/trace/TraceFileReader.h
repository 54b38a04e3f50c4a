// Reading several trace files side by side (the ranks of a run): a thread per
// file in flight, as many files at once as asked and as fit in a memory
// budget, with progress and cancel for another thread to watch.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "profiling/trace/ChromeTraceImport.h"

namespace fuselab {

// Read by another thread while readTraceFiles works (the window, the CLI).
class FilesReadProgress {
 public:
  size_t fileCount() const { return count_.load(std::memory_order_acquire); }
  size_t filesDone() const { return files_done_.load(); }
  uint64_t bytesTotal() const { return bytes_total_.load(); }
  uint64_t bytesDone() const;  // of the files (compressed for gzip)
  // "files read: 12 of 128, 3.4 GB of 36 GB"
  std::string text() const;
  // Stops the reading: readTraceFiles throws TraceImportCancelled.
  void cancel();
  bool cancelled() const { return cancel_.load(); }

 private:
  friend class FilesReadProgressWriter;
  std::unique_ptr<ImportProgress[]> files_;
  std::atomic<size_t> count_{0};
  std::atomic<size_t> files_done_{0};
  std::atomic<uint64_t> bytes_total_{0};
  std::atomic<bool> cancel_{false};
};

struct TraceFilesReadOptions {
  ChromeImportOptions import;  // window size, threads; its progress is the reader's own
  unsigned threads = 0;  // files read at once, each parsed as import.parallel says; 0: as planReading decides
  // Imports in flight (importPeakEstimate of each) within this; one always may run.
  uint64_t memory_budget = UINT64_MAX;
  FilesReadProgress* progress = nullptr;  // optional; must outlive the call
};

// How many files readTraceFiles reads at once, and whether each is parsed on
// its reading thread alone. When memory lets nearly every core read a file
// of its own, it does: parsed on two threads, a file hands each window from
// one to the other, and two files so kept the VM's 2 cores no busier than
// two parsed alone (8 ranks of 396 MB: 4.4-4.8 s against 4.4-4.5, with a
// third less memory; H200, 128 ranks, 15 at once: 21.8 s against 23.7 s
// for 8 at once on two threads each). Else half as many files as cores, each on two (two
// files at least, so that one file's use overlaps the next one's import).
struct ReadingPlan {
  unsigned threads = 1;
  bool parse_alone = false;
};
// largest_peak: the largest file's importPeakEstimate.
ReadingPlan planReading(size_t files, unsigned cores, uint64_t largest_peak, const TraceFilesReadOptions& options);

// Imports each file and hands its trace to use(i, trace) on the thread that
// read it (uses of different files run at once). Returns, per file, why it
// could not be read ("cannot read PATH: why"; "" when it was). Throws TraceImportCancelled when
// cancelled, or the first exception a `use` threw, once every thread is done.
std::vector<std::string> readTraceFiles(const std::vector<std::filesystem::path>& files,
                                        const TraceFilesReadOptions& options,
                                        const std::function<void(size_t, Trace&&)>& use);

}  // namespace fuselab
