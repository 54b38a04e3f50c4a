// The timeline's lanes as objects (TimelineLane.h): builds one per lane and
// header of a LaneLayout (EventLane, GpuStreamLane where the analysis has
// idle gaps, GroupHeaderLane) plus the StepBand pinned above them, and runs
// the drawing passes over them in order. TimelineView owns one; input stays
// with the view.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "profiling/analysis/common/PreRecordingOps.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/Trace.h"
#include "ui/lanes/StepBand.h"
#include "ui/lanes/TimelineLane.h"
#include "ui/layout/DepthIndex.h"
#include "ui/layout/GapGeometry.h"
#include "ui/layout/MemoryFolding.h"
#include "ui/layout/TimeRuler.h"

namespace fuselab::ui {

class MemoryLane;

class TimelineLanes {
 public:
  // A new trace (nullptr: none), or a new analysis of it (nullptr: no gaps
  // or steps). Both are kept by reference; call rebuild() before drawing.
  void setTrace(const Trace* trace);
  void setAnalysis(const TraceAnalysis* analysis);
  // The trace's GPU ops launched before recording began: drawn dimmed and
  // hatched, and said so in their tooltip.
  const PreRecordingOps& beforeRecording() const { return before_recording_; }
  // One lane per lane and header of `layout` (kept by reference), and the
  // step band, `step_band_height` high, when the analysis has steps.
  void rebuild(const LaneLayout& layout, float step_band_height);

  bool hasStepBand() const { return step_band_ != nullptr; }
  // The pinned step band in its own frame: prepares and draws it.
  void drawStepBand(const LaneFrame& band);
  LaneHover hoverStepBand(const LaneFrame& band, ImVec2 mouse) const;

  // The scrolled lanes, in this order each frame: prepare, hover (what is at
  // the pointer), drawBackgrounds, then with the time area clipped
  // drawTimeArea and drawHover, then drawLabels.
  void prepare(const LaneFrame& f);
  LaneHover hover(const LaneFrame& f, ImVec2 mouse) const;
  void drawBackgrounds(const LaneFrame& f) const;
  // Major grid lines, what lies under the events, the step bounds, the events.
  void drawTimeArea(const LaneFrame& f, const Ruler& ruler) const;
  void drawLabels(const LaneFrame& f) const;
  static void drawHover(const LaneFrame& f, const LaneHover& hover);
  static void drawDetails(const Theme& theme, const LaneHover& hover);
  // The folding of `device`'s memory lane (of the analysis these lanes
  // show), so the Memory tab need not build its own each frame; null when
  // that device has no lane.
  const MemoryFolding* memoryFolding(const DeviceMemory& device) const;

 private:
  const Trace* trace_ = nullptr;
  const TraceAnalysis* analysis_ = nullptr;
  DepthIndex depth_index_;
  PreRecordingOps before_recording_;
  GapIndex gap_index_;
  std::vector<std::unique_ptr<TimelineLane>> lanes_;  // top to bottom
  std::vector<const MemoryLane*> memory_lanes_;       // of lanes_
  std::unique_ptr<StepBand> step_band_;
};

}  // namespace fuselab::ui
