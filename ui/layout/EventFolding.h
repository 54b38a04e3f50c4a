// Level of detail: turns the visible part of one lane into flat draw records.
// Events at least `min_event_px` wide become one record each; a run of
// narrower events (each closer than min_event_px to the next) becomes one
// "N events" record. The walk jumps over a run by binary search, so the work
// per frame depends on the pixels on screen, not on the number of events.
#pragma once

#include <cstdint>
#include <vector>

#include "ui/layout/DepthIndex.h"
#include "ui/layout/TimeAxis.h"

namespace fuselab::ui {

struct DrawRecord {
  float x0 = 0, x1 = 0;  // screen x, clipped to a little outside the view
  uint16_t depth = 0;
  uint32_t first = 0;    // event index (in the Track) of the first event
  uint32_t last = 0;     // event index of the last event (== first when count is 1)
  uint32_t count = 1;    // > 1: a folded run

  bool folded() const { return count > 1; }
};

struct FoldOptions {
  float min_event_px = 3.0f;
};

// Appends the records of one depth column, left to right.
void foldDepth(const DepthColumn& column, uint16_t depth, const TimeAxis& axis, const FoldOptions& options,
               std::vector<DrawRecord>& out);

// The records of one lane, sorted by (depth, x0).
struct LaneRecords {
  uint32_t track = 0;
  std::vector<DrawRecord> records;
  // Per depth, the position of its first record, plus a final entry with the
  // total: depth d owns records [depth_begin[d], depth_begin[d + 1]).
  std::vector<uint32_t> depth_begin;
};

// Replaces `out`'s records with those of every depth of `track`.
void foldTrack(uint32_t track_index, const TrackDepths& track, const TimeAxis& axis, const FoldOptions& options,
               LaneRecords& out);

}  // namespace fuselab::ui
