// Trace::buildLaunchLinks (Trace.h): launch call -> GPU ops, from the
// correlation and category columns of the sorted tracks.
#include <algorithm>

#include "profiling/trace/Trace.h"

namespace fuselab {

void Trace::buildLaunchLinks() {
  // Only those two columns are read: finalize sorts the others meanwhile.
  launches_.clear();
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  size_t linked = 0;
  for (const Track& t : tracks)
    for (size_t i = 0; i < t.correlation.size(); ++i)
      if (t.correlation[i] >= 0 && (isLaunchCall(t.category[i]) || isGpuWork(t.category[i]))) {
        lo = std::min(lo, t.correlation[i]);
        hi = std::max(hi, t.correlation[i]);
        ++linked;
      }
  launch_index_.reset(lo, hi, linked);
  launches_.reserve(linked);  // at most one per id; address space only, no regrowth copies
  auto linkFor = [&](int64_t corr) -> LaunchLink& {
    const uint32_t at = launch_index_.findOrAdd(corr, static_cast<uint32_t>(launches_.size()));
    if (at == launches_.size()) launches_.push_back(LaunchLink{corr, std::nullopt, {}});
    return launches_[at];
  };
  for (uint32_t ti = 0; ti < tracks.size(); ++ti) {
    const Track& t = tracks[ti];
    for (uint32_t i = 0; i < t.correlation.size(); ++i) {
      if (t.correlation[i] < 0) continue;
      if (isLaunchCall(t.category[i])) {
        LaunchLink& l = linkFor(t.correlation[i]);
        if (!l.launch) l.launch = EventRef{ti, i};
      } else if (isGpuWork(t.category[i])) {
        linkFor(t.correlation[i]).gpu_ops.push_back(EventRef{ti, i});
      }
    }
  }
  launch_index_.freeze();
}

}  // namespace fuselab
