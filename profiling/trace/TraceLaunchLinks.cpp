// Trace::buildLaunchLinks (Trace.h): launch call -> GPU ops, from the
// correlation and category columns of the sorted tracks (in a merged run,
// each rank's on its own core); copyLaunchLinks: another trace's, for
// tracks copied from it.
#include <algorithm>
#include <iterator>

#include "profiling/trace/ParallelFor.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

namespace {

constexpr size_t kNoIds = SIZE_MAX, kMixed = SIZE_MAX - 1;

// Tracks whose ids each lie in one part, the parts in track order (a merged
// run: rank after rank): each part's tracks, [first, last), else empty.
std::vector<std::pair<uint32_t, uint32_t>> tracksByPart(const std::vector<size_t>& part_of_track, size_t parts) {
  std::vector<std::pair<uint32_t, uint32_t>> ranges(parts, {0, 0});
  size_t last = 0;
  bool any = false;
  for (uint32_t ti = 0; ti < part_of_track.size(); ++ti) {
    const size_t p = part_of_track[ti];
    if (p == kNoIds) continue;
    if (p == kMixed || p >= parts || (any && p < last)) return {};
    if (!any || p != last) ranges[p].first = ti;
    ranges[p].second = ti + 1;
    last = p, any = true;
  }
  return ranges;
}

}  // namespace

void Trace::buildLaunchLinks() {
  // Only those two columns are read: finalize sorts the others meanwhile.
  launches_.clear();
  // The ids' spans part by part: a merged run's ranks are dense each.
  constexpr size_t kMaxParts = 1 << 16;
  std::vector<CorrelationIndex::IdSpan> parts;
  CorrelationIndex::IdSpan all;
  std::vector<size_t> part_of_track(tracks.size(), kNoIds);
  for (uint32_t ti = 0; ti < tracks.size(); ++ti) {
    const Track& t = tracks[ti];
    for (size_t i = 0; i < t.correlation.size(); ++i)
      if (const int64_t id = t.correlation[i]; id >= 0 && (isLaunchCall(t.category[i]) || isGpuWork(t.category[i]))) {
        all.add(id);
        const size_t part = static_cast<size_t>(id >> CorrelationIndex::kPartBits);
        size_t& track_part = part_of_track[ti];
        track_part = track_part == kNoIds || track_part == part ? part : kMixed;
        if (part < kMaxParts) {
          if (part >= parts.size()) parts.resize(part + 1);
          parts[part].add(id);
        }
      }
  }
  const size_t linked = all.count;
  if (all.hi >> CorrelationIndex::kPartBits < int64_t(kMaxParts)) launch_index_.reset(parts);
  else launch_index_.reset(all.lo, all.hi, all.count);
  // Each part's links on its own core when the parts' tracks follow each
  // other: the same links in the same order as one pass over the tracks.
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  if (launch_index_.byPart()) ranges = tracksByPart(part_of_track, parts.size());
  auto addLinks = [&](std::vector<LaunchLink>& links, uint32_t first_track, uint32_t last_track) {
    auto linkFor = [&](int64_t corr) -> LaunchLink& {
      const uint32_t at = launch_index_.findOrAdd(corr, static_cast<uint32_t>(links.size()));
      if (at == links.size()) links.push_back(LaunchLink{corr, std::nullopt, {}});
      return links[at];
    };
    for (uint32_t ti = first_track; ti < last_track; ++ti) {
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
  };
  if (ranges.empty()) {
    launches_.reserve(linked);  // at most one per id; address space only, no regrowth copies
    addLinks(launches_, 0, static_cast<uint32_t>(tracks.size()));
    launch_index_.freeze();
    return;
  }
  std::vector<std::vector<LaunchLink>> by_part(ranges.size());
  parallelFor(ranges.size(), [&](size_t p) {
    by_part[p].reserve(parts[p].count);
    addLinks(by_part[p], ranges[p].first, ranges[p].second);
    launch_index_.freezePart(p);
  });
  std::vector<uint32_t> base(ranges.size());
  launches_.reserve(linked);
  for (size_t p = 0; p < by_part.size(); ++p) {
    base[p] = static_cast<uint32_t>(launches_.size());
    std::move(by_part[p].begin(), by_part[p].end(), std::back_inserter(launches_));
  }
  parallelFor(ranges.size(), [&](size_t p) { launch_index_.offsetPart(p, base[p]); });
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
