// The rank x time overview strip of a run: per rank, which share of each
// time cell it spent communicating (collective kernels or Gloo ops) or busy
// (other GPU work; CPU ops for ranks without a GPU), and the cell's state.
// Built once per run from each rank's activity bins (RankActivity.h); a
// frame asks for ranks x columns cells in O(log n) each, so it stays cheap
// at 64+ ranks.
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/analysis/run/RunAnalysis.h"

namespace fuselab::ui {

enum class RankActivity : uint8_t { Idle, Busy, Communicating };

// Covered bins with the covered length before each one, so the coverage of
// any time range is two binary searches; a bin counts as covered evenly.
class Coverage {
 public:
  Coverage() = default;
  // Bin i spans [begin_ns + i * bin_ns, +bin_ns) and is covered covered_ns[i].
  static Coverage fromBins(int64_t begin_ns, int64_t bin_ns, const std::vector<int64_t>& covered_ns);
  int64_t coveredNs(double begin, double end) const;
  size_t size() const { return begins_.size(); }

 private:
  double coveredBefore(double t) const;
  int64_t bin_ns_ = 1;
  std::vector<int64_t> begins_;  // of the covered bins
  std::vector<double> before_;   // covered length of bins 0..i-1
  std::vector<double> density_;  // share of bin i covered
};

struct RankActivityRow {
  int rank = 0;
  Coverage comm;
  Coverage busy;
};

// One row per rank of the run, by position, on the aligned axis: from each
// rank's activity bins (RankSummary.h), so ranks whose events were dropped
// have their row too.
std::vector<RankActivityRow> buildRankActivity(const Run& run, const RunAnalysis& analysis);

// Cell (row, column) at out[row * columns + column] for `columns` equal cells
// over [begin_ns, end_ns): communicating when at least a quarter of the cell
// is communication and that exceeds the busy share, busy when a quarter is
// busy, idle otherwise.
void rankActivityCells(const std::vector<RankActivityRow>& rows, double begin_ns, double end_ns, int columns,
                       std::vector<RankActivity>& out);

// Runs of equal non-idle cells in each row, one rectangle each: what the
// strip draws (a few per rank instead of one per cell).
struct ActivityRun {
  uint32_t row = 0;
  int first = 0, end = 0;  // columns [first, end)
  RankActivity state = RankActivity::Busy;
};
void activityRuns(const std::vector<RankActivity>& cells, size_t rows, int columns, std::vector<ActivityRun>& out);

}  // namespace fuselab::ui
