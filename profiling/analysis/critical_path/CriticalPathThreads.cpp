// CPU collectives (Gloo's "gloo:all_reduce", ...) in CriticalPathGraph: they
// run on a worker thread of their rank, so two dependencies cross threads.
// The worker starts one when the training thread enqueued it (a c10d:: op
// such as c10d::allreduce_): its idle time before the collective ends after
// the enqueue started. The training thread then waits for the work in an
// unrecorded wait (inside an annotation such as ProfilerStep#k): the
// annotation's time running when the collective ends resumes after it.
// (A thread that went on with other unrecorded work meanwhile would be
// counted as waiting too: the trace cannot tell the two apart.)
#include <algorithm>
#include <limits>
#include <map>

#include "profiling/analysis/critical_path/CriticalPathGraph.h"
#include "profiling/analysis/common/NameFlags.h"

namespace fuselab {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

bool isCollectiveEnqueue(std::string_view name) { return name.starts_with("c10d::"); }

}  // namespace

size_t CriticalPathGraph::sliceAt(uint32_t track, int64_t time) const {
  const auto [first, last] = track_activities_[track];
  auto it = std::upper_bound(activities_.begin() + static_cast<std::ptrdiff_t>(first),
                             activities_.begin() + static_cast<std::ptrdiff_t>(last), time,
                             [](int64_t v, const PathActivity& a) { return v < a.start_ns; });
  if (it == activities_.begin() + static_cast<std::ptrdiff_t>(first)) return SIZE_MAX;
  const size_t a = static_cast<size_t>(std::prev(it) - activities_.begin());
  return time <= activities_[a].end_ns ? a : SIZE_MAX;
}

void CriticalPathGraph::addCpuCollectiveThreads(const Trace& trace, const std::vector<uint8_t>& is_collective) {
  const std::vector<uint8_t> is_enqueue = nameFlags(trace.strings, isCollectiveEnqueue);
  // Per rank: its CPU threads, and its enqueue ops by start.
  std::map<int, std::vector<uint32_t>> threads;
  std::map<int, std::vector<std::pair<int64_t, EventRef>>> enqueues;
  bool any = false;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.kind != TrackKind::Cpu) continue;
    threads[t.rank].push_back(ti);
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (is_enqueue[t.name_id[i]]) enqueues[t.rank].emplace_back(t.start_ns[i], EventRef{ti, i});
      any = any || is_collective[t.name_id[i]];
    }
  }
  if (!any) return;
  auto byStart = [](const auto& a, const auto& b) { return a.first < b.first; };
  for (auto& [rank, list] : enqueues) std::stable_sort(list.begin(), list.end(), byStart);

  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.kind != TrackKind::Cpu) continue;
    for (uint32_t i = 0; i < t.size(); ++i) {
      uint32_t start = kNone, end = kNone;
      if (!is_collective[t.name_id[i]] || !eventNodes({ti, i}, start, end)) continue;
      // The worker: its start follows the latest enqueue on another thread.
      const auto& list = enqueues[t.rank];
      auto it = std::upper_bound(list.begin(), list.end(), std::make_pair(t.start_ns[i], EventRef{kNone, kNone}),
                                 byStart);
      while (it != list.begin() && std::prev(it)->second.track == ti) --it;
      uint32_t enqueued = kNone, unused = kNone;
      if (it != list.begin() && eventNodes(std::prev(it)->second, enqueued, unused)) {
        const size_t a = activityOf(start);
        if (a > track_activities_[ti].first && activities_[a].chained)
          addEndDependency(enqueued, a - 1, PathKind::Wait, ti, -1);  // the worker idle until then
        else
          edges_.push_back({enqueued, start, t.start_ns[i] - observedNs(enqueued), -1, ti, -1, PathKind::Wait, true});
      }
      // The waiters: the same rank's other threads, in an annotation's own time when it ended.
      const int64_t done = observedNs(end);
      for (uint32_t other : threads[t.rank]) {
        if (other == ti) continue;
        const size_t s = sliceAt(other, done);
        if (s == SIZE_MAX || activities_[s].event < 0 || activities_[s].end_ns <= done) continue;
        const Track& ot = trace.tracks[other];
        if (ot.category[static_cast<size_t>(activities_[s].event)] != Category::UserAnnotation) continue;
        addEndDependency(end, s, PathKind::Wait, other, activities_[s].event);
      }
    }
  }
}

}  // namespace fuselab
