// Flow arrows for the selected event: launch call -> the GPU op(s) it
// enqueued, and the reverse when a GPU op is selected. Selecting a CPU op
// (aten::linear, a user scope) shows the flows of every launch nested in it.
#pragma once

#include <vector>

#include "profiling/trace/Trace.h"
#include "ui/layout/LaneLayout.h"
#include "ui/layout/TimeAxis.h"

namespace fuselab::ui {

struct FlowLink {
  EventRef from;  // the launch call (or a Trace::flows source)
  EventRef to;    // the GPU op (or a Trace::flows target)
};

// The flows to draw for `selected`, at most `max_links` of them.
std::vector<FlowLink> flowsForEvent(const Trace& trace, EventRef selected, size_t max_links = 256);

struct FlowArrow {
  FlowLink link;
  float x0 = 0, y0 = 0;  // at the start of the source event, middle of its row (y in layout coordinates)
  float x1 = 0, y1 = 0;  // at the start of the target event
};

// Arrow geometry; links whose tracks have no lane are left out.
std::vector<FlowArrow> flowArrows(const Trace& trace, const std::vector<FlowLink>& links, const LaneLayout& layout,
                                  const TimeAxis& axis);

}  // namespace fuselab::ui
