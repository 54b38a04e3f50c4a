#include "ui/layout/RunOverview.h"

#include <algorithm>
#include <map>

#include "profiling/analysis/Analysis.h"
#include "profiling/analysis/CollectiveKind.h"

namespace fuselab::ui {

Coverage::Coverage(std::vector<std::pair<int64_t, int64_t>> v) {
  std::sort(v.begin(), v.end());
  int64_t covered = 0;
  for (const auto& [s, e] : v) {
    if (e <= s) continue;
    if (!ends_.empty() && s <= ends_.back()) {
      if (e > ends_.back()) covered += e - ends_.back(), ends_.back() = e;
      continue;
    }
    before_.push_back(covered);
    begins_.push_back(s);
    ends_.push_back(e);
    covered += e - s;
  }
}

double Coverage::coveredBefore(double t) const {
  // The last interval starting before t.
  auto it = std::upper_bound(begins_.begin(), begins_.end(), t, [](double v, int64_t b) { return v < double(b); });
  if (it == begins_.begin()) return 0;
  const size_t i = static_cast<size_t>(it - begins_.begin()) - 1;
  return double(before_[i]) + std::min(t, double(ends_[i])) - double(begins_[i]);
}

int64_t Coverage::coveredNs(double begin, double end) const {
  if (end <= begin || begins_.empty()) return 0;
  return static_cast<int64_t>(coveredBefore(end) - coveredBefore(begin));
}

std::vector<RankActivityRow> buildRankActivity(const Trace& trace) {
  struct Lists {
    std::vector<std::pair<int64_t, int64_t>> comm, gpu, cpu;
  };
  std::map<int, Lists> by_rank;
  for (const Track& t : trace.tracks) {
    if (t.rank < 0) continue;
    Lists& l = by_rank[t.rank];
    for (size_t i = 0; i < t.size(); ++i) {
      const std::string_view name = trace.strings.get(t.name_id[i]);
      const std::pair<int64_t, int64_t> span{t.start_ns[i], t.end_ns(i)};
      if (t.kind == TrackKind::Gpu && isGpuWork(t.category[i]))
        (t.category[i] == Category::Kernel && isCollectiveKernelName(name) ? l.comm : l.gpu).push_back(span);
      else if (t.kind == TrackKind::Cpu && isCpuCollectiveName(name))
        l.comm.push_back(span);
      else if (t.kind == TrackKind::Cpu && t.category[i] == Category::CpuOp && !profilerStepIndex(name))
        l.cpu.push_back(span);
    }
  }
  std::vector<RankActivityRow> rows;
  for (auto& [rank, l] : by_rank) {
    RankActivityRow row;
    row.rank = rank;
    row.comm = Coverage(std::move(l.comm));
    row.busy = Coverage(l.gpu.empty() ? std::move(l.cpu) : std::move(l.gpu));
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
