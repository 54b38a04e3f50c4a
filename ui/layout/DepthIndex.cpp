#include "ui/layout/DepthIndex.h"

#include <algorithm>

namespace fuselab::ui {

size_t DepthColumn::firstEndingAfter(int64_t t) const {
  return static_cast<size_t>(std::upper_bound(end_ns.begin(), end_ns.end(), t) - end_ns.begin());
}

size_t DepthColumn::firstStartingAtOrAfter(int64_t t, size_t from) const {
  from = std::min(from, start_ns.size());
  return static_cast<size_t>(std::lower_bound(start_ns.begin() + static_cast<std::ptrdiff_t>(from), start_ns.end(), t) -
                             start_ns.begin());
}

DepthIndex::DepthIndex(const Trace& trace) {
  tracks_.resize(trace.tracks.size());
  for (size_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    TrackDepths& td = tracks_[ti];
    td.depths.resize(t.size() ? t.max_depth + 1u : 0u);
    std::vector<size_t> counts(td.depths.size(), 0);
    for (size_t i = 0; i < t.size(); ++i) ++counts[t.depth[i]];
    for (size_t d = 0; d < td.depths.size(); ++d) {
      td.depths[d].start_ns.reserve(counts[d]);
      td.depths[d].end_ns.reserve(counts[d]);
      td.depths[d].event.reserve(counts[d]);
    }
    for (size_t i = 0; i < t.size(); ++i) {
      DepthColumn& c = td.depths[t.depth[i]];
      c.start_ns.push_back(t.start_ns[i]);
      c.end_ns.push_back(t.end_ns(i));
      c.event.push_back(static_cast<uint32_t>(i));
    }
  }
}

}  // namespace fuselab::ui
