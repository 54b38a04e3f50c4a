// What is under the pointer: maps a point of the timeline to the draw record
// (an event, or a folded run of events) shown there.
#pragma once

#include <optional>
#include <vector>

#include "ui/layout/EventFolding.h"
#include "ui/layout/LaneLayout.h"

namespace fuselab::ui {

struct Hit {
  uint32_t track = 0;
  DrawRecord record;  // record.first is the event when !record.folded()

  EventRef event() const { return EventRef{track, record.first}; }
};

// `lanes` is parallel to `layout.lanes` (the records of each lane this frame).
// `y` is in layout (content) coordinates. A record within `tolerance_px` of x
// counts, the nearest one wins, so events one pixel wide can still be picked.
std::optional<Hit> hitTest(const LaneLayout& layout, const std::vector<LaneRecords>& lanes, float x, float y,
                           float tolerance_px = 2.0f);
// The same inside one lane (`records` are that lane's); nothing when y is
// outside the lane's band.
std::optional<Hit> hitTestLane(const LaneLayout& layout, const Lane& lane, const LaneRecords& records, float x, float y,
                               float tolerance_px = 2.0f);

}  // namespace fuselab::ui
