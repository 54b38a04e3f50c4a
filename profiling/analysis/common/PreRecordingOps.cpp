#include "profiling/analysis/common/PreRecordingOps.h"

#include <algorithm>
#include <map>

namespace fuselab {

namespace {

const LaunchLink* linkOf(const Trace& trace, const Track& t, uint32_t i) {
  return t.correlation[i] >= 0 ? trace.launchFor(t.correlation[i]) : nullptr;
}

// Per rank (Track::rank, -1 outside a merged run): the start of its first
// launch call that enqueued a GPU op. Tracks are sorted by start, so each
// is read only up to its first such call.
std::map<int, int64_t> firstLinkedLaunch(const Trace& trace) {
  std::map<int, int64_t> first;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (!isLaunchCall(t.category[i])) continue;
      const LaunchLink* link = linkOf(trace, t, i);
      if (!link || link->gpu_ops.empty() || link->launch != EventRef{ti, i}) continue;
      auto [it, added] = first.try_emplace(t.rank, t.start_ns[i]);
      if (!added) it->second = std::min(it->second, t.start_ns[i]);
      break;
    }
  }
  return first;
}

}  // namespace

PreRecordingOps::PreRecordingOps(const Trace& trace) : recorded_from_(trace.tracks.size(), 0) {
  const std::map<int, int64_t> first_launch = firstLinkedLaunch(trace);
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    const auto rank_launch = first_launch.find(t.rank);
    if (t.kind != TrackKind::Gpu || rank_launch == first_launch.end()) continue;
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (!isGpuWork(t.category[i])) continue;
      const LaunchLink* link = linkOf(trace, t, i);
      const bool follows_one = recorded_from_[ti] > 0;
      if ((link && link->launch) || !(follows_one || t.start_ns[i] < rank_launch->second)) break;
      recorded_from_[ti] = i + 1;
      ++count_;
    }
  }
}

}  // namespace fuselab
