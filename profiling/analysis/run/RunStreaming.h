// Opening a run rank by rank in bounded memory. Ranks are read side by side
// (TraceFileReader.h: one per two cores and two at least, fewer when their
// imports would not fit in the memory set aside for them) and each is
// summarised (RankSummary.h) as soon as it is read. The events are kept when
// the whole run fits in memory; otherwise each rank's events are dropped
// once summarised, and the run's analysis comes from the summaries alone. A
// rank whose file cannot be read is named and skipped; the others open.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "profiling/analysis/critical_path/CriticalPathGraph.h"
#include "profiling/analysis/run/RunAnalysis.h"
#include "profiling/trace/RunLoader.h"
#include "profiling/trace/TraceFileReader.h"

namespace fuselab {

// WhenTheyFit: keep the events when the whole run fits, else drop them.
// Required: keep them; refuse the run (RunLoadError) before reading it when
// they would not fit. Never, Always: as said (tests, benchmarks).
enum class KeepEvents : uint8_t { WhenTheyFit, Required, Never, Always };

struct RunStreamOptions {
  RunAnalysisOptions analysis;
  // The import, the ranks read at once, progress and cancel; its memory
  // budget is streamRun's to set.
  TraceFilesReadOptions reading;
  KeepEvents keep = KeepEvents::WhenTheyFit;
  // Memory the run may take; nullopt: availableMemory() (MemoryBudget.h).
  std::optional<uint64_t> memory_bytes;
  // Build each rank's part of the critical path's graph as it is read
  // (when the events are kept), beside the other ranks' reading.
  bool critical_path_parts = false;
};

struct StreamedRun {
  std::shared_ptr<const Run> run;  // each rank's events, or only its meta (RankTrace::events_dropped)
  RunAnalysis analysis;
  uint64_t memory_bytes = 0;   // the memory the run was allowed (UINT64_MAX: unknown)
  std::string dropped_reason;  // why the events were dropped ("" when kept)
  // By position in run->ranks, when asked and the events were kept.
  std::vector<std::shared_ptr<const CriticalPathGraph>> path_parts;

  bool eventsKept() const { return dropped_reason.empty(); }
};

// The memory the imports in flight may take: a sixth of what the run may
// use (the rest is for the summaries, the window and lanes loaded later).
// A sixth lets 16 ranks of 1M events (about 400 MB of JSON) be read at once
// with 23 GB, one per core on the 16-core GPU machines.
uint64_t streamingImportBudget(uint64_t memory_bytes);
// Whether every rank's events may stay: the imports of all of them within
// half of the run's memory.
bool runFitsInMemory(uint64_t import_peak_total, uint64_t memory_bytes);

// Throws RunLoadError (no file readable, ranks clash, files of other jobs)
// or TraceImportCancelled.
StreamedRun streamRun(const std::vector<std::filesystem::path>& files, const RunStreamOptions& options = {});

}  // namespace fuselab
