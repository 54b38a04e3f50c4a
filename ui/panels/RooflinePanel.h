// The roofline of the trace's GPU: the roof (GEMM peak of the dominant dtype
// and copy bandwidth, measured or published) and a dot per kernel name at its
// intensity and achieved TFLOP/s, area ~ total time; hover shows the
// figures, a click selects its next slice on the timeline.
#pragma once

#include <imgui.h>

#include "profiling/analysis/single/Analysis.h"
#include "ui/Theme.h"
#include "ui/TimelineView.h"

namespace fuselab::ui {

void drawRooflinePanel(const TraceAnalysis& analysis, const Theme& theme, TimelineView& timeline);

}  // namespace fuselab::ui
