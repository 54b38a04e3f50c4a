// What one rank was doing over its span, in fixed bins: how much of each bin
// it spent communicating (collective kernels, Gloo ops) and busy (other GPU
// work; CPU ops for ranks without a GPU). A run keeps this per rank once the
// rank's events are dropped (RankSummary.h): it draws the overview strip.
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/analysis/common/Intervals.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct RankActivityBins {
  int64_t begin_ns = 0;  // the rank's own clock
  int64_t bin_ns = 1;
  std::vector<int64_t> comm_ns;  // covered time per bin (intervals merged first)
  std::vector<int64_t> busy_ns;

  int64_t endNs() const { return begin_ns + bin_ns * static_cast<int64_t>(comm_ns.size()); }
};

struct RankActivityIntervals {
  Intervals comm;
  Intervals busy;
};

// Tracks of `trace` whose Track::rank is `rank` (-1: every track); any order.
RankActivityIntervals rankActivityIntervals(const Trace& trace, int rank = -1);

// The intervals' coverage in `bins` equal bins over [begin_ns, end_ns).
RankActivityBins binActivity(const RankActivityIntervals& activity, int64_t begin_ns, int64_t end_ns, size_t bins);

inline constexpr size_t kRankActivityBins = 8192;

}  // namespace fuselab
