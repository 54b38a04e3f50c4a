// Per-rank figures of a run (utilization and idle time as for one trace,
// communication time, comm/compute overlap, time lost waiting in
// collectives) and the straggler ranking (how often a rank arrived last, and
// the wait those collectives had).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiling/analysis/single/AnalysisGaps.h"
#include "profiling/analysis/single/AnalysisUtilization.h"
#include "profiling/analysis/run/RankTimeBreakdown.h"
#include "profiling/analysis/run/RunCollectives.h"

namespace fuselab {

struct RankStats {
  int rank = 0;
  std::string file;
  int64_t begin_ns = 0;       // the rank's own clock: its first event's start
  int64_t end_ns = 0;         // its last event's end
  uint64_t events = 0;
  uint64_t kernels = 0;       // kernels in the analysis scope
  uint64_t gpu_ops = 0;       // kernels, copies and memsets in the analysis scope
  Utilization utilization;    // GPU, as analyzeTrace
  IdleBreakdown idle;         // GPU idle gaps by cause, as analyzeTrace
  RankTimeBreakdown time;     // compute / non-compute / idle, as HTA's temporal breakdown
  uint64_t collectives = 0;   // collective events found (matched or not)
  int64_t comm_ns = 0;        // union of its collective events
  int64_t wait_ns = 0;        // sum over matched collectives of (last arrival - its arrival)
  // Share of GPU communication time during which a compute kernel ran on
  // another stream of the same GPU; nullopt without GPU collectives.
  std::optional<double> overlap_fraction;
  uint64_t late_count = 0;      // collectives it arrived last at (with a wait > 0)
  int64_t wait_caused_ns = 0;   // sum of those collectives' wait
};

struct Straggler {
  int rank = 0;
  uint64_t late_count = 0;
  int64_t wait_caused_ns = 0;
};

// Share of the union of `comm` covered by the union of `compute`; nullopt
// when comm is empty. Intervals [start, end), any order.
std::optional<double> overlapFraction(std::vector<std::pair<int64_t, int64_t>> comm,
                                      std::vector<std::pair<int64_t, int64_t>> compute);

// Kernel overlap of one rank, GPU by GPU (HTA's get_comm_comp_overlap).
std::optional<double> commComputeOverlap(const Trace& trace, const std::vector<CollectiveEvent>& collectives);

// Ranks that arrived last at least once, most wait caused first.
std::vector<Straggler> rankStragglers(const std::vector<RankStats>& ranks);

// Adds the collective figures (wait, late counts) to per-rank stats.
void addCollectiveFigures(const std::vector<CollectiveStats>& collectives, std::vector<RankStats>& ranks);

}  // namespace fuselab
