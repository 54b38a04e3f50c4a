// Per track and depth, the events of one sub-row as flat sorted columns, built
// once per trace so each frame can find the visible range by binary search.
// Trace::finalize() guarantees that events of one track and depth never
// overlap, so both the start and the end columns are sorted.
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/trace/Trace.h"

namespace fuselab::ui {

struct DepthColumn {
  std::vector<int64_t> start_ns;
  std::vector<int64_t> end_ns;
  std::vector<uint32_t> event;  // index into the Track's columns

  size_t size() const { return start_ns.size(); }
  // First position whose event ends after t (events that start before t but
  // reach into the view are found too).
  size_t firstEndingAfter(int64_t t) const;
  // First position at or after `from` whose event starts at or after t.
  size_t firstStartingAtOrAfter(int64_t t, size_t from = 0) const;
};

struct TrackDepths {
  std::vector<DepthColumn> depths;  // [depth]
};

class DepthIndex {
 public:
  DepthIndex() = default;
  explicit DepthIndex(const Trace& trace);

  const TrackDepths& track(uint32_t t) const { return tracks_[t]; }
  size_t trackCount() const { return tracks_.size(); }

 private:
  std::vector<TrackDepths> tracks_;
};

}  // namespace fuselab::ui
