// The "Flame graph" tab: where the time went by call stack, over the captured
// steps or the timeline's view. CPU time, or GPU time under the stack of the
// launch that started each GPU op; top-down or inverted (bottom-up). Hover
// for count, total, self, GPU time and share; click zooms to a frame (its
// callers stay above) and outlines that name's events on the timeline;
// search highlights the frames whose names contain the text.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/stacks/FlameGraph.h"
#include "ui/Theme.h"
#include "ui/TimelineView.h"
#include "ui/layout/FlameLayout.h"

namespace fuselab::ui {

// Draws a flame graph into the rest of the window: hover, click to zoom.
// Returns the frame clicked this frame, if any. `change` (may be null)
// colours each frame by its relative change instead (the differential flame
// graph: > 0 slower, red; < 0 faster, blue; NaN within the noise, grey).
struct FlameDrawResult {
  std::optional<uint32_t> clicked;
};
FlameDrawResult drawFlameGraph(const Trace& trace, const FlameGraph& graph, FlameMetric metric, uint32_t zoom,
                               const Theme& theme, const std::string& search,
                               const std::vector<float>* change = nullptr);

class FlamePanel {
 public:
  // A tab item (call between ImGui::BeginTabBar and EndTabBar); none
  // without a trace.
  void drawTab(const Trace* trace, const TraceAnalysis* analysis, const Theme& theme, TimelineView& timeline);
  // The same content outside a tab (screenshots of the flame graph alone).
  void drawContent(const Trace& trace, const TraceAnalysis* analysis, const Theme& theme, TimelineView& timeline);
  void setMetric(FlameMetric m) { metric_ = m; }

 private:
  void rebuildIfNeeded(const Trace& trace, const TraceAnalysis* analysis, const TimelineView& timeline);

  FlameMetric metric_ = FlameMetric::Cpu;
  bool inverted_ = false;
  bool follow_view_ = false;  // the timeline's view instead of the captured steps
  char search_[128] = "";
  uint32_t zoom_ = 0;
  // What the graph shown was built from.
  const Trace* built_for_ = nullptr;
  const TraceAnalysis* built_with_ = nullptr;
  bool built_inverted_ = false, built_follow_ = false;
  FlameMetric built_metric_ = FlameMetric::Cpu;
  double built_begin_ = 0, built_end_ = 0;
  double last_build_time_ = -1;
  FlameGraph graph_;   // top-down
  FlameGraph shown_;   // graph_ or its inversion
};

}  // namespace fuselab::ui
