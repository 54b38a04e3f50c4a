// Hover tooltips of the timeline: one event (name, timing, launch relation,
// the args a learner looks at: grid, block, registers, shared memory, input
// dims), a folded run of events, and the words for gap causes.
#pragma once

#include <string_view>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/Trace.h"
#include "ui/Theme.h"

namespace fuselab::ui {

std::string_view gapCauseLabel(GapCause c);        // "host wait", "kernel wait", "other"
std::string_view gapCauseExplanation(GapCause c);  // one sentence for a learner

// Call while hovering; opens and closes the tooltip itself.
// `before_recording`: a GPU op launched before recording began (PreRecordingOps.h).
void drawEventDetailsTooltip(const Trace& trace, const TraceAnalysis* analysis, EventRef event, const Theme& theme,
                             bool before_recording = false);
void drawFoldedTooltip(const Trace& trace, uint32_t track, uint32_t first, uint32_t last, uint32_t count);

}  // namespace fuselab::ui
