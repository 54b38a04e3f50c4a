// CPU threads in CriticalPathGraph: each thread's time, from its first event
// to its last, cut at every event boundary into slices, each the time of its
// innermost open event (or idle where none is open); consecutive slices
// follow each other.
#include <limits>

#include "profiling/analysis/critical_path/CriticalPathGraph.h"

namespace fuselab {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

PathKind cpuKind(const Trace& trace, const Track& t, size_t i, const std::vector<uint8_t>& is_sync,
                 const std::vector<uint8_t>& is_cpu_collective) {
  if (!isLaunchCall(t.category[i])) return is_cpu_collective[t.name_id[i]] ? PathKind::Collective : PathKind::Cpu;
  if (is_sync[t.name_id[i]]) return PathKind::Wait;
  const LaunchLink* link = t.correlation[i] >= 0 ? trace.launchFor(t.correlation[i]) : nullptr;
  return link && !link->gpu_ops.empty() ? PathKind::Launch : PathKind::Cpu;
}

}  // namespace

void CriticalPathGraph::cpuSlices(const Trace& trace, uint32_t ti, const std::vector<uint8_t>& is_sync,
                                  const std::vector<uint8_t>& is_cpu_collective, TrackActivities& out) {
  const Track& t = trace.tracks[ti];
  auto& slices = out.activities;
  std::vector<uint32_t>& starts = out.event_start;
  std::vector<uint32_t>& ends = out.event_end;
  starts.assign(t.size(), kNone);
  ends.assign(t.size(), kNone);
  if (t.size() == 0) return;
  slices.reserve(2 * size_t(t.size()) + 1);  // at most a slice per event boundary
  std::vector<std::pair<uint32_t, PathKind>> open;  // events open at `pos` and their kinds, innermost last
  std::vector<uint32_t> waiting_start;  // events whose start is the next slice's start
  std::vector<uint32_t> waiting_end;    // zero-length events before any slice
  int64_t pos = t.start_ns[0];

  auto emit = [&](int64_t end, int32_t event, PathKind kind) {
    if (end <= pos) return;
    const size_t a = slices.size();
    // Thread order: each slice starts where the one before it ended.
    slices.push_back({ti, kind, a > 0, event, pos, end, end - pos});
    for (uint32_t e : waiting_start) starts[e] = startNode(a);
    for (uint32_t e : waiting_end) ends[e] = startNode(a);
    waiting_start.clear();
    waiting_end.clear();
    pos = end;
  };
  auto closeUntil = [&](int64_t time) {
    while (!open.empty() && t.end_ns(open.back().first) <= time) {
      const auto [e, kind] = open.back();
      open.pop_back();
      emit(t.end_ns(e), static_cast<int32_t>(e), kind);
      if (!slices.empty())
        ends[e] = endNode(slices.size() - 1);
      else
        waiting_end.push_back(e);
    }
  };

  for (uint32_t i = 0; i < t.size(); ++i) {
    closeUntil(t.start_ns[i]);
    if (open.empty()) emit(t.start_ns[i], -1, PathKind::Idle);
    else emit(t.start_ns[i], static_cast<int32_t>(open.back().first), open.back().second);
    waiting_start.push_back(i);
    open.emplace_back(i, cpuKind(trace, t, i, is_sync, is_cpu_collective));
  }
  closeUntil(std::numeric_limits<int64_t>::max());
  if (slices.empty()) return;  // only zero-length events: no time on this thread
  const uint32_t last_end = endNode(slices.size() - 1);
  for (uint32_t e : waiting_start) starts[e] = last_end;
  for (uint32_t e : waiting_end) ends[e] = last_end;
}

}  // namespace fuselab
