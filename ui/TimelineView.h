// The timeline: CPU lanes (per thread) above GPU lanes (per stream) on one
// time axis, with a ruler, ProfilerStep#k bands, GPU idle gaps shaded by
// cause, folded runs of tiny events, hover tooltips, selection and flow
// arrows (launch -> GPU op and back). ImGui drawing only: the geometry comes
// from ui/layout/.
//
// Instant events (Trace::raw_events) are marked under the ruler.
//
// A merged run (tracks with Track::rank) shows a header per rank (click to
// collapse or expand its lanes) and its collectives as links across the
// ranks' events with the late arrival marked (TimelineRun.cpp).
//
// The lanes are objects (ui/lanes/: TimelineLanes owns them); this class
// holds the view (axis, selection, scroll), the ruler, the overlays across
// lanes (selection and flows; collectives in TimelineRun.cpp) and the input
// (TimelineInput.cpp). Mouse: wheel zooms around the pointer, Shift+wheel
// scrolls lanes, drag pans, click selects, double-click zooms to the event,
// a click on a step fits it. Keys: W/S zoom, A/D pan, F fit all, 1..9 fit
// step k.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiling/analysis/run/RunNcclChannels.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/Trace.h"
#include "ui/Theme.h"
#include "ui/lanes/CriticalPathOverlay.h"
#include "ui/lanes/TimelineLanes.h"
#include "ui/layout/FitExtent.h"
#include "ui/layout/FlowEndpoints.h"
#include "ui/layout/LaneLayout.h"
#include "ui/layout/TimeAxis.h"
#include "ui/layout/TimeRuler.h"

namespace fuselab::ui {

class TimelineView {
 public:
  // Shows a trace (nullptr: none) and its analysis (may be null: no gaps or
  // steps then). The view is fitted to the trace (fitAll).
  void setTrace(std::shared_ptr<const Trace> trace, std::shared_ptr<const TraceAnalysis> analysis);
  // New analysis of the same trace (e.g. another gap threshold); keeps the view.
  void setAnalysis(std::shared_ptr<const TraceAnalysis> analysis);

  // Draws into the remaining content region of the current ImGui window.
  void draw(const Theme& theme);

  // View commands (applied at the next draw, when the width is known).
  // Fit all shows every event but GPU ops launched before recording began
  // (FitExtent.h); zooming out still reaches them.
  void fitAll();
  bool fitStep(size_t ordinal);  // 0-based, in time order; false if there is no such step
  void showRange(double begin_ns, double end_ns);  // absolute trace times
  void select(std::optional<EventRef> event, bool reveal = false);
  // Selects the next event (after the selection, wrapping) whose name is
  // `name`, and with `reveal` brings it into view; false when there is none.
  bool findNext(std::string_view name, bool reveal = true);

  // The critical path of the shown trace (may be null), drawn over the lanes
  // while shown (the toolbar's "Critical path" box).
  void setCriticalPath(std::shared_ptr<const CriticalPathAnalysis> path) { critical_path_.set(std::move(path)); }
  const CriticalPathAnalysis* criticalPath() const { return critical_path_.path(); }
  void showCriticalPath(bool show) { show_critical_path_ = show; }
  bool criticalPathShown() const { return show_critical_path_; }
  // The path of the step in view (under the view's centre).
  const StepPath* criticalPathInView() const;

  // --- runs -------------------------------------------------------------------
  struct CollectiveLink {
    std::vector<EventRef> events;  // one per rank, in the shown trace
    size_t late = SIZE_MAX;        // index of the late arrival in `events` (SIZE_MAX: not shown)
    double begin_ns = 0, end_ns = 0;
  };
  // Links to draw (any order); cleared by setTrace.
  void setCollectiveLinks(std::vector<CollectiveLink> links);
  // A NCCL kernel's channels (from the ranks' side files), drawn as thin
  // sub-rows under the kernel's lane while shown (the toolbar's "NCCL
  // channels" box); cleared by setTrace.
  void setNcclChannels(std::vector<NcclKernelChannels> kernels);
  void showNcclChannels(bool show);
  bool ncclChannelsShown() const { return show_nccl_channels_; }
  void toggleRank(int rank);
  bool rankCollapsed(int rank) const;
  // Expands the rank and scrolls its lanes to the top (at the next draw).
  void scrollToRank(int rank);
  // Where the rank's header row was drawn in the last frame (its title's
  // left end, screen coordinates); nullopt when off screen or no such rank.
  std::optional<ImVec2> rankHeaderPos(int rank) const;

  std::optional<EventRef> selected() const { return selected_; }
  // Outlines every event named `name_id` (a frame chosen in the flame graph;
  // 0: none).
  void highlightName(uint32_t name_id) { highlight_name_ = name_id; }
  uint32_t highlightedName() const { return highlight_name_; }
  const TimeAxis& axis() const { return axis_; }
  // The memory lane's folding of `device` (TimelineLanes::memoryFolding).
  const MemoryFolding* memoryFolding(const DeviceMemory& device) const { return lanes_.memoryFolding(device); }
  bool hasTrace() const { return trace_ != nullptr; }
  // Screen rectangle the timeline occupied in the last draw (for screenshots
  // of the timeline area).
  ImVec2 lastRectMin() const { return rect_min_; }
  ImVec2 lastRectMax() const { return rect_max_; }
  // Where `e` was drawn in the last frame (centre, screen coordinates);
  // nullopt when it was off screen.
  std::optional<ImVec2> screenCenterOf(EventRef e) const;
  // Where step `ordinal` (0-based, in time order) was drawn in the step band
  // in the last frame (centre); nullopt when off screen or there is none.
  std::optional<ImVec2> stepCenterOf(size_t ordinal) const;

 private:
  struct Pending {
    double begin = 0, end = 0;
    double margin = 0;
  };

  void rebuildLayout(float row_height);
  void drawEmpty(const Theme& theme);
  void drawToolbar(const Theme& theme);
  void drawRuler(const Theme& theme, ImDrawList* dl, ImVec2 min, ImVec2 max, const Ruler& ruler);
  void drawStepBand(const Theme& theme, ImVec2 min, ImVec2 max);
  void drawMarkers(const Theme& theme, ImDrawList* dl, ImVec2 min, ImVec2 max);
  void drawLanes(const Theme& theme, const Ruler& ruler, float height);
  void drawSelection(const LaneFrame& f) const;
  // TimelineRun.cpp
  void drawCollectiveLinks(const Theme& theme, ImDrawList* dl, ImVec2 content, float vis_top, float vis_bottom);
  void drawNcclChannels(const Theme& theme, ImDrawList* dl, ImVec2 content, float vis_top, float vis_bottom) const;
  // TimelineInput.cpp
  void handleWheelAndDrag(bool hovered, float scroll_y);
  void handleClick(bool hovered, const LaneHover& hover);
  void handleKeys();
  void revealEvent(EventRef e);
  double maxNsPerPx() const;
  float labelWidth() const;

  std::shared_ptr<const Trace> trace_;
  std::shared_ptr<const TraceAnalysis> analysis_;
  double trace_begin_ = 0, trace_end_ = 0;  // cached: Trace::endNs() walks every event
  TimeExtent fit_;                          // what fitAll shows
  std::vector<uint32_t> marker_order_;  // Trace::raw_events by time
  LaneLayout layout_;
  TimelineLanes lanes_;  // over layout_
  float layout_row_height_ = 0;
  float label_width_ = 0;
  float label_font_size_ = 0;

  TimeAxis axis_;
  std::optional<Pending> pending_;
  std::optional<float> pending_scroll_y_;
  std::optional<EventRef> selected_;
  std::vector<FlowLink> selected_flows_;
  std::vector<int> collapsed_ranks_;
  std::optional<int> pending_rank_;
  std::vector<CollectiveLink> links_;  // by begin
  std::vector<NcclKernelChannels> nccl_channels_;  // by begin_ns
  int64_t longest_nccl_ns_ = 0;                    // of their spans, to find those in view
  bool show_nccl_channels_ = false;
  CriticalPathOverlay critical_path_;
  bool show_critical_path_ = false;
  uint32_t highlight_name_ = 0;
  double longest_link_ns_ = 0;

  float drag_distance_ = 0;
  ImVec2 lanes_origin_{0, 0};  // screen position of layout y = 0 in the last frame
  ImVec2 lanes_clip_min_{0, 0}, lanes_clip_max_{0, 0};
  ImVec2 rect_min_{0, 0}, rect_max_{0, 0};
  ImVec2 step_band_min_{0, 0}, step_band_max_{0, 0};  // empty when no band was drawn
};

}  // namespace fuselab::ui
