// One band of the timeline and what it shows. Each frame a lane on screen
// turns the visible time range into draw records (prepare), then draws in
// passes that TimelineLanes runs over all lanes in order (backgrounds, what
// lies under the events, what crosses every lane, the events, the labels),
// answers what is under the pointer (hover) and shows its details.
//
// The kinds: EventLane (a CPU thread's or another track's events),
// GpuStreamLane (a GPU stream's events over its idle gaps), GroupHeaderLane
// (a group's title row; a rank's header collapses its lanes) and StepBand
// (the steps, pinned above the lanes, with their bounds across them).
#pragma once

#include <imgui.h>

#include <cstdint>
#include <optional>

#include "ui/Theme.h"
#include "ui/layout/GapGeometry.h"
#include "ui/layout/HitTest.h"
#include "ui/layout/LaneLayout.h"
#include "ui/layout/TimeAxis.h"

namespace fuselab::ui {

// Where and how one frame draws: screen positions and the visible part.
struct LaneFrame {
  const Theme* theme = nullptr;
  ImDrawList* dl = nullptr;
  const TimeAxis* axis = nullptr;
  const LaneLayout* layout = nullptr;
  float content_y = 0;                // screen y of band y = 0
  ImVec2 win_min{0, 0}, win_max{0, 0};  // the band area on screen
  float vis_top = 0, vis_bottom = 0;  // the visible band y range
  uint32_t highlight_name = 0;        // events of this name are outlined (a flame graph frame); 0: none

  float sy(float band_y) const { return content_y + band_y; }
  float timeX0() const { return axis->origin_px; }
  float timeX1() const { return axis->origin_px + axis->width_px; }
};

class TimelineLane;

// What the pointer is on: at most one of an event (or folded run), an idle
// gap or a rank's header.
struct LaneHover {
  const TimelineLane* lane = nullptr;
  std::optional<Hit> event;
  std::optional<GapRect> gap;
  int rank = -1;
  size_t step = SIZE_MAX;  // a step of the step band
  int64_t memory_point = -1;  // a point of a memory lane's curve

  bool empty() const { return lane == nullptr; }
};

class TimelineLane {
 public:
  virtual ~TimelineLane() = default;

  // The band this lane occupies (y from the top of its area).
  virtual float top() const = 0;
  virtual float bottom() const = 0;
  bool onScreen(const LaneFrame& f) const { return !(bottom() < f.vis_top || top() > f.vis_bottom); }

  // The visible time range into draw records; lanes off screen are not asked.
  virtual void prepare(const LaneFrame& f) { (void)f; }
  virtual void drawBackground(const LaneFrame& f) const = 0;
  // In the time area, behind the events (idle gaps).
  virtual void drawUnder(const LaneFrame& f) const { (void)f; }
  // Across every lane, before their events (step bounds); `f` is the lanes'.
  virtual void drawAcross(const LaneFrame& f) const { (void)f; }
  virtual void drawEvents(const LaneFrame& f) const { (void)f; }
  virtual void drawLabel(const LaneFrame& f) const { (void)f; }

  // What is at `mouse` (screen) this frame; empty when nothing of this lane.
  virtual LaneHover hover(const LaneFrame& f, ImVec2 mouse) const {
    (void)f, (void)mouse;
    return {};
  }
  // Outlines what `hover` found (in the time area).
  virtual void drawHover(const LaneFrame& f, const LaneHover& hover) const { (void)f, (void)hover; }
  // The tooltip for what `hover` found.
  virtual void drawDetails(const Theme& theme, const LaneHover& hover) const { (void)theme, (void)hover; }
};

}  // namespace fuselab::ui
