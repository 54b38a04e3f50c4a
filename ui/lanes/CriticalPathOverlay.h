// The critical path (profiling/analysis/critical_path/CriticalPath.h) over the timeline's
// lanes: each event on the path outlined, time on the path without an event
// (idle, a launch's latency, a wait) as a bar along its lane, and a line
// wherever the path hands over from one lane (or rank) to another.
#pragma once

#include <memory>

#include "profiling/analysis/critical_path/CriticalPath.h"
#include "profiling/trace/Trace.h"
#include "ui/lanes/TimelineLane.h"

namespace fuselab::ui {

class CriticalPathOverlay {
 public:
  void set(std::shared_ptr<const CriticalPathAnalysis> path) { path_ = std::move(path); }
  const CriticalPathAnalysis* path() const { return path_.get(); }
  // The step under `ns`, else the nearest before it; nullptr without steps.
  const StepPath* stepAt(double ns) const;

  // Draws the segments of the steps in view (the time area is clipped).
  void draw(const LaneFrame& f, const Trace& trace) const;

 private:
  std::shared_ptr<const CriticalPathAnalysis> path_;
};

}  // namespace fuselab::ui
