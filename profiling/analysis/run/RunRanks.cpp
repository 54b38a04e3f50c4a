#include "profiling/analysis/run/RunRanks.h"

#include <algorithm>
#include <map>

#include "profiling/analysis/common/Intervals.h"

namespace fuselab {

namespace {

// Sorted, disjoint.
Intervals merged(Intervals v) {
  std::sort(v.begin(), v.end());
  Intervals out;
  for (const auto& [s, e] : v) {
    if (e <= s) continue;
    if (!out.empty() && s <= out.back().second) out.back().second = std::max(out.back().second, e);
    else out.emplace_back(s, e);
  }
  return out;
}

int64_t lengthOf(const Intervals& disjoint) {
  int64_t total = 0;
  for (const auto& [s, e] : disjoint) total += e - s;
  return total;
}

}  // namespace

std::optional<double> overlapFraction(Intervals comm, Intervals compute) {
  const Intervals a = merged(std::move(comm)), b = merged(std::move(compute));
  const int64_t total = lengthOf(a);
  if (total == 0) return std::nullopt;
  int64_t both = 0;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    const int64_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo) both += hi - lo;
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return double(both) / double(total);
}

std::optional<double> commComputeOverlap(const Trace& trace, const std::vector<CollectiveEvent>& collectives) {
  std::map<int, std::pair<Intervals, Intervals>> by_device;  // device -> (comm, compute)
  for (const CollectiveEvent& c : collectives)
    if (c.on_gpu) by_device[trace.tracks[c.event.track].device].first.emplace_back(c.start_ns, c.end_ns);
  if (by_device.empty()) return std::nullopt;
  for (const Track& t : trace.tracks) {
    auto it = by_device.find(t.device);
    if (t.kind != TrackKind::Gpu || it == by_device.end()) continue;
    for (size_t i = 0; i < t.size(); ++i)
      if (t.category[i] == Category::Kernel && !isCollectiveKernelName(trace.strings.get(t.name_id[i])))
        it->second.second.emplace_back(t.start_ns[i], t.end_ns(i));
  }
  int64_t comm_total = 0;
  double overlapped = 0;
  for (auto& [device, lists] : by_device) {
    const int64_t comm = lengthOf(merged(lists.first));
    comm_total += comm;
    overlapped += overlapFraction(std::move(lists.first), std::move(lists.second)).value_or(0) * double(comm);
  }
  if (comm_total == 0) return std::nullopt;
  return overlapped / double(comm_total);
}

void addCollectiveFigures(const std::vector<CollectiveStats>& collectives, std::vector<RankStats>& ranks) {
  for (const CollectiveStats& s : collectives) {
    for (const CollectiveArrival& a : s.arrivals) ranks[a.rank_pos].wait_ns += s.last_arrival_ns - a.arrival_ns;
    if (s.wait_ns <= 0) continue;
    ranks[s.late_pos].late_count += 1;
    ranks[s.late_pos].wait_caused_ns += s.wait_ns;
  }
}

std::vector<Straggler> rankStragglers(const std::vector<RankStats>& ranks) {
  std::vector<Straggler> out;
  for (const RankStats& r : ranks)
    if (r.late_count > 0) out.push_back({r.rank, r.late_count, r.wait_caused_ns});
  std::sort(out.begin(), out.end(), [](const Straggler& a, const Straggler& b) {
    if (a.wait_caused_ns != b.wait_caused_ns) return a.wait_caused_ns > b.wait_caused_ns;
    if (a.late_count != b.late_count) return a.late_count > b.late_count;
    return a.rank < b.rank;
  });
  return out;
}

}  // namespace fuselab
