#include "ui/layout/EventFolding.h"

#include <algorithm>
#include <cmath>

namespace fuselab::ui {

namespace {

// Screen x, kept within a margin of the view so far-off events do not
// produce huge floats.
float clippedX(const TimeAxis& axis, int64_t ns) {
  double x = axis.origin_px + (static_cast<double>(ns) - axis.start_ns) / axis.ns_per_px;
  double lo = axis.origin_px - 16.0, hi = axis.origin_px + axis.width_px + 16.0;
  return static_cast<float>(std::clamp(x, lo, hi));
}

}  // namespace

void foldDepth(const DepthColumn& c, uint16_t depth, const TimeAxis& axis, const FoldOptions& options,
               std::vector<DrawRecord>& out) {
  const size_t n = c.size();
  if (n == 0 || axis.ns_per_px <= 0) return;
  const auto view_begin = static_cast<int64_t>(std::floor(axis.start_ns));
  const auto view_end = static_cast<int64_t>(std::ceil(axis.endNs()));
  // Events narrower than this fold; so do gaps narrower than this between them.
  const double fold_ns = options.min_event_px * axis.ns_per_px;

  auto narrow = [&](size_t p) { return static_cast<double>(c.end_ns[p] - c.start_ns[p]) < fold_ns; };
  auto emit = [&](size_t first, size_t last) {
    DrawRecord r;
    r.x0 = clippedX(axis, c.start_ns[first]);
    r.x1 = clippedX(axis, c.end_ns[last]);
    r.depth = depth;
    r.first = c.event[first];
    r.last = c.event[last];
    r.count = static_cast<uint32_t>(last - first + 1);
    out.push_back(r);
  };

  size_t i = c.firstEndingAfter(view_begin);
  // A zero-length event exactly at the left edge ends "at" view_begin; keep it.
  while (i > 0 && c.end_ns[i - 1] == view_begin && c.start_ns[i - 1] == view_begin) --i;
  while (i < n && c.start_ns[i] <= view_end) {
    if (!narrow(i)) {
      emit(i, i);
      ++i;
      continue;
    }
    size_t first = i, last = i;
    // The run stops past the right edge: what lies beyond is not drawn.
    while (c.end_ns[last] <= view_end) {
      // Every event starting within fold_ns of the run's end joins it; one
      // binary search skips all of them at once. Only the last of those can
      // reach further (same-depth events do not overlap), so only it is checked.
      auto reach = static_cast<int64_t>(std::ceil(static_cast<double>(c.end_ns[last]) + fold_ns));
      size_t j = c.firstStartingAtOrAfter(std::min(reach, view_end + 1), last + 1);
      if (j == last + 1) break;  // nothing close enough follows
      size_t k = j - 1;
      if (!narrow(k)) {  // a wide event ends the run; it is drawn on its own
        if (k > last + 1) last = k - 1;
        break;
      }
      last = k;
    }
    emit(first, last);
    i = last + 1;
  }
}

void foldTrack(uint32_t track_index, const TrackDepths& track, const TimeAxis& axis, const FoldOptions& options,
               LaneRecords& out) {
  out.track = track_index;
  out.records.clear();
  out.depth_begin.clear();
  for (size_t d = 0; d < track.depths.size(); ++d) {
    out.depth_begin.push_back(static_cast<uint32_t>(out.records.size()));
    foldDepth(track.depths[d], static_cast<uint16_t>(d), axis, options, out.records);
  }
  out.depth_begin.push_back(static_cast<uint32_t>(out.records.size()));
}

}  // namespace fuselab::ui
