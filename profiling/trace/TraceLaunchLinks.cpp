// Trace::buildLaunchLinks (Trace.h): launch call -> GPU ops, from the
// correlation and category columns of the sorted tracks; copyLaunchLinks:
// another trace's, for tracks copied from it.
#include <algorithm>

#include "profiling/trace/Trace.h"

namespace fuselab {

void Trace::buildLaunchLinks() {
  // Only those two columns are read: finalize sorts the others meanwhile.
  launches_.clear();
  // The ids' spans part by part: a merged run's ranks are dense each.
  constexpr size_t kMaxParts = 1 << 16;
  std::vector<CorrelationIndex::IdSpan> parts;
  CorrelationIndex::IdSpan all;
  for (const Track& t : tracks)
    for (size_t i = 0; i < t.correlation.size(); ++i)
      if (const int64_t id = t.correlation[i]; id >= 0 && (isLaunchCall(t.category[i]) || isGpuWork(t.category[i]))) {
        all.add(id);
        if (const size_t part = static_cast<size_t>(id >> CorrelationIndex::kPartBits); part < kMaxParts) {
          if (part >= parts.size()) parts.resize(part + 1);
          parts[part].add(id);
        }
      }
  const size_t linked = all.count;
  if (all.hi >> CorrelationIndex::kPartBits < int64_t(kMaxParts)) launch_index_.reset(parts);
  else launch_index_.reset(all.lo, all.hi, all.count);
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

void Trace::copyLaunchLinks(const Trace& src, const std::vector<uint32_t>& track_of) {
  launches_ = src.launches_;
  for (LaunchLink& l : launches_) {
    if (l.launch) l.launch->track = track_of[l.launch->track];
    for (EventRef& op : l.gpu_ops) op.track = track_of[op.track];
  }
  launch_index_ = src.launch_index_;  // the same ids at the same places
}

}  // namespace fuselab
