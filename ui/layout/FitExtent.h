// The time range Fit all shows: the trace's events from the earliest start
// to the latest end, GPU ops launched before recording began left out. One
// that spun into the recorded steps would otherwise stretch the view over
// the time before recording, where nothing else was recorded; it is still
// drawn, left of the fitted view.
#pragma once

#include <cstdint>

#include "profiling/analysis/common/PreRecordingOps.h"
#include "profiling/trace/Trace.h"

namespace fuselab::ui {

struct TimeExtent {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;  // both 0 when no event counts
};

struct TraceExtents {
  TimeExtent whole;  // every event (Trace::beginNs, Trace::endNs)
  TimeExtent fit;    // what Fit all shows
};

// One pass over the events.
TraceExtents traceExtents(const Trace& trace, const PreRecordingOps& before_recording);

}  // namespace fuselab::ui
