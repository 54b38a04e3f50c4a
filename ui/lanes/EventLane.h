// A lane of one track's events (a CPU thread, or a track of another kind):
// its events, folded where they are too small to see one by one, in a row
// per call depth, with the thread's name in the label column.
#pragma once

#include "profiling/analysis/common/PreRecordingOps.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/Trace.h"
#include "ui/lanes/TimelineLane.h"
#include "ui/layout/DepthIndex.h"
#include "ui/layout/EventFolding.h"

namespace fuselab::ui {

class EventLane : public TimelineLane {
 public:
  // `lane` is one of `layout.lanes`; `stripe` picks the background shade
  // (alternating lanes). `analysis` may be null. All are kept by reference.
  // GPU ops in `before_recording` are drawn dimmed and hatched.
  EventLane(const Trace& trace, const TraceAnalysis* analysis, const PreRecordingOps& before_recording,
            const LaneLayout& layout, const Lane& lane, const TrackDepths& depths, size_t stripe);

  float top() const override { return lane_.top; }
  float bottom() const override { return lane_.top + lane_.height; }
  void prepare(const LaneFrame& f) override;
  void drawBackground(const LaneFrame& f) const override;
  void drawEvents(const LaneFrame& f) const override;
  void drawLabel(const LaneFrame& f) const override;
  LaneHover hover(const LaneFrame& f, ImVec2 mouse) const override;
  void drawHover(const LaneFrame& f, const LaneHover& hover) const override;
  void drawDetails(const Theme& theme, const LaneHover& hover) const override;

 protected:
  const Trace& trace_;
  const TraceAnalysis* analysis_;
  const LaneLayout& layout_;
  const Lane& lane_;

 private:
  bool launchedBeforeRecording(uint32_t index) const;  // of an event of this lane's track

  const PreRecordingOps& before_recording_;
  const TrackDepths& depths_;
  size_t stripe_;
  LaneRecords records_;  // this frame's
};

}  // namespace fuselab::ui
