// The "Memory" tab (traces that recorded memory): per device, allocated and
// reserved bytes over the analysed span with the peak and its stack; then
// the ops that allocated most, as torch's key_averages() counts them.
#pragma once

#include "profiling/analysis/single/Analysis.h"
#include "ui/Theme.h"
#include "ui/TimelineView.h"

namespace fuselab::ui {

// A tab item; none when the trace recorded no memory.
void drawMemoryTab(const Trace* trace, const TraceAnalysis* analysis, const Theme& theme, TimelineView& timeline);
// The tab's content (also what `screenshot --area memory` shows).
void drawMemoryPanel(const Trace& trace, const TraceAnalysis& analysis, const Theme& theme, TimelineView& timeline);

}  // namespace fuselab::ui
