// The "Critical path" tab: for the step in the timeline's view, what set its
// time, by kind and by rank; its segments in order (a click selects the
// event, or shows the stretch); and what halving the ops longest on the
// paths would buy.
#pragma once

#include "profiling/trace/Trace.h"
#include "ui/Theme.h"
#include "ui/TimelineView.h"

namespace fuselab::ui {

class CriticalPathPanel {
 public:
  // A tab item (call between ImGui::BeginTabBar and EndTabBar); none when
  // the timeline has no critical path.
  void drawTab(const Trace* trace, const Theme& theme, TimelineView& timeline);

 private:
  void drawSegments(const Trace& trace, const StepPath& step, TimelineView& timeline);
  void drawWhatIfs(const CriticalPathAnalysis& path);
};

}  // namespace fuselab::ui
