#include "ui/layout/RunOverview.h"

#include <algorithm>

namespace fuselab::ui {

Coverage Coverage::fromBins(int64_t begin_ns, int64_t bin_ns, const std::vector<int64_t>& covered_ns) {
  Coverage c;
  c.bin_ns_ = bin_ns;
  double covered = 0;
  for (size_t i = 0; i < covered_ns.size(); ++i) {
    if (covered_ns[i] <= 0) continue;
    c.begins_.push_back(begin_ns + bin_ns * static_cast<int64_t>(i));
    c.before_.push_back(covered);
    c.density_.push_back(std::min(1.0, double(covered_ns[i]) / double(bin_ns)));
    covered += double(covered_ns[i]);
  }
  return c;
}

double Coverage::coveredBefore(double t) const {
  // The last interval starting before t.
  auto it = std::upper_bound(begins_.begin(), begins_.end(), t, [](double v, int64_t b) { return v < double(b); });
  if (it == begins_.begin()) return 0;
  const size_t i = static_cast<size_t>(it - begins_.begin()) - 1;
  return before_[i] + std::min(t - double(begins_[i]), double(bin_ns_)) * density_[i];
}

int64_t Coverage::coveredNs(double begin, double end) const {
  if (end <= begin || begins_.empty()) return 0;
  return static_cast<int64_t>(coveredBefore(end) - coveredBefore(begin));
}

std::vector<RankActivityRow> buildRankActivity(const Run& run, const RunAnalysis& analysis) {
  std::vector<RankActivityRow> rows;
  for (size_t p = 0; p < run.ranks.size() && p < analysis.activity.size(); ++p) {
    const RankActivityBins& bins = analysis.activity[p];
    const int64_t begin = bins.begin_ns + analysis.alignment.offsets_ns[p];
    RankActivityRow row;
    row.rank = run.ranks[p].rank;
    row.comm = Coverage::fromBins(begin, bins.bin_ns, bins.comm_ns);
    row.busy = Coverage::fromBins(begin, bins.bin_ns, bins.busy_ns);
    rows.push_back(std::move(row));
  }
  return rows;
}

void rankActivityCells(const std::vector<RankActivityRow>& rows, double begin_ns, double end_ns, int columns,
                       std::vector<RankActivity>& out) {
  out.assign(rows.size() * static_cast<size_t>(std::max(columns, 0)), RankActivity::Idle);
  if (columns <= 0 || end_ns <= begin_ns) return;
  const double cell = (end_ns - begin_ns) / columns;
  for (size_t r = 0; r < rows.size(); ++r) {
    for (int c = 0; c < columns; ++c) {
      const double a = begin_ns + c * cell, b = a + cell;
      const double comm = double(rows[r].comm.coveredNs(a, b)) / cell;
      const double busy = double(rows[r].busy.coveredNs(a, b)) / cell;
      RankActivity& s = out[r * columns + c];
      if (comm >= 0.25 && comm >= busy) s = RankActivity::Communicating;
      else if (busy >= 0.25) s = RankActivity::Busy;
    }
  }
}

void activityRuns(const std::vector<RankActivity>& cells, size_t rows, int columns, std::vector<ActivityRun>& out) {
  out.clear();
  if (columns <= 0 || cells.size() < rows * size_t(columns)) return;
  for (size_t r = 0; r < rows; ++r) {
    const RankActivity* row = &cells[r * columns];
    for (int c = 0; c < columns;) {
      int end = c + 1;
      while (end < columns && row[end] == row[c]) ++end;
      if (row[c] != RankActivity::Idle) out.push_back({static_cast<uint32_t>(r), c, end, row[c]});
      c = end;
    }
  }
}

}  // namespace fuselab::ui
