// The rank x time overview strip of a run: per rank, which share of each
// time cell it spent communicating (collective kernels or Gloo ops) or busy
// (other GPU work; CPU ops for ranks without a GPU), and the cell's state.
// Built once per merged trace; a frame asks for ranks x columns cells in
// O(log n) each, so it stays cheap at 64+ ranks.
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/trace/Trace.h"

namespace fuselab::ui {

enum class RankActivity : uint8_t { Idle, Busy, Communicating };

// Disjoint sorted intervals with the covered length before each one, so the
// coverage of any time range is two binary searches.
class Coverage {
 public:
  Coverage() = default;
  explicit Coverage(std::vector<std::pair<int64_t, int64_t>> intervals);  // any order, may overlap
  int64_t coveredNs(double begin, double end) const;
  size_t size() const { return begins_.size(); }

 private:
  double coveredBefore(double t) const;
  std::vector<int64_t> begins_, ends_, before_;  // before_[i]: covered length of intervals 0..i-1
};

struct RankActivityRow {
  int rank = 0;
  Coverage comm;
  Coverage busy;
};

// One row per rank of a merged run (Track::rank), by rank.
std::vector<RankActivityRow> buildRankActivity(const Trace& merged);

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
