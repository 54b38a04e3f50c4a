#include "profiling/analysis/run/RunStreaming.h"

#include <map>

#include "profiling/analysis/collectives/CollectiveEvents.h"
#include "profiling/trace/FreedMemory.h"
#include "profiling/trace/MemoryBudget.h"
#include "profiling/trace/TraceTextStream.h"

namespace fuselab {

namespace fs = std::filesystem;

namespace {

// The trace without its events: what a run keeps of a rank it cannot hold.
void dropEvents(RankTrace& r) {
  Trace meta_only;
  meta_only.meta = std::move(r.trace.meta);
  r.trace = std::move(meta_only);
  r.events_dropped = true;
  returnFreedMemory();
}

}  // namespace

uint64_t streamingImportBudget(uint64_t memory_bytes) { return memory_bytes / 6; }

bool runFitsInMemory(uint64_t import_peak_total, uint64_t memory_bytes) { return import_peak_total <= memory_bytes / 2; }

StreamedRun streamRun(const std::vector<fs::path>& files, const RunStreamOptions& options) {
  if (files.empty()) throw RunLoadError("no trace files given");
  const size_t n = files.size();
  StreamedRun out;
  uint64_t peak_total = 0;
  for (const fs::path& f : files) peak_total += importPeakEstimate(traceTextSizeHint(f));
  const auto available = availableMemory();
  out.memory_bytes = options.memory_bytes ? *options.memory_bytes : available ? available->bytes : UINT64_MAX;
  const bool fits = runFitsInMemory(peak_total, out.memory_bytes);
  const std::string too_large = "the ranks' events would take about " + formatBytes(peak_total) + " of the " +
                                formatBytes(out.memory_bytes) + " available";
  if (options.keep == KeepEvents::Required && !fits)
    throw RunLoadError("this needs every rank's events in memory, but " + too_large +
                       " (the window and `fuselab analyze` open runs this large)");
  const bool keep = options.keep == KeepEvents::Always || options.keep == KeepEvents::Required ||
                    (options.keep == KeepEvents::WhenTheyFit && fits);
  if (!keep)
    out.dropped_reason = options.keep == KeepEvents::Never
                             ? "each rank's events were dropped once summarised, as asked"
                             : too_large + ": each rank's events were dropped once summarised";

  std::vector<std::optional<RankTrace>> ranks_read(n);
  std::vector<RankSummary> summaries_read(n);
  std::vector<std::shared_ptr<const CriticalPathGraph>> parts_read(n);
  const bool parts = keep && options.critical_path_parts;
  TraceFilesReadOptions reading = options.reading;
  reading.memory_budget = keep ? UINT64_MAX : streamingImportBudget(out.memory_bytes);
  // Events dropped once summarised: only the args the summaries read are
  // kept (about half of a rank's JSON is args, copied and paged in for nothing).
  if (!keep) reading.import.keep_args = &collectiveArgsNeeded;
  const std::vector<std::string> errors = readTraceFiles(files, reading, [&](size_t i, Trace&& t) {
    RankTrace r = rankTraceOf(files[i], std::move(t), n);
    summaries_read[i] = summarizeRank(r, options.analysis.trace);
    if (parts) parts_read[i] = std::make_shared<const CriticalPathGraph>(CriticalPathGraph::rankPart(r.trace));
    if (!keep) dropEvents(r);
    ranks_read[i] = std::move(r);
  });

  std::vector<RankTrace> ranks;
  std::vector<std::string> unreadable;
  std::map<std::string, size_t> read_of_file;  // the index a rank's file was read at
  for (size_t i = 0; i < n; ++i) {
    if (!ranks_read[i]) {
      unreadable.push_back(errors[i]);
      continue;
    }
    read_of_file.emplace(ranks_read[i]->file, i);
    ranks.push_back(std::move(*ranks_read[i]));
  }
  auto run = std::make_shared<Run>(assembleRun(std::move(ranks), std::move(unreadable), n));
  std::vector<RankSummary> summaries;
  summaries.reserve(run->ranks.size());
  for (const RankTrace& r : run->ranks) {
    const size_t i = read_of_file.at(r.file);
    summaries.push_back(std::move(summaries_read[i]));
    if (parts) out.path_parts.push_back(std::move(parts_read[i]));
  }
  out.analysis = analyzeRunSummaries(*run, std::move(summaries), options.analysis);
  out.run = std::move(run);
  return out;
}

}  // namespace fuselab
