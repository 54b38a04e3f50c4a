// A GPU stream's lane: its kernels, copies and sets (as EventLane) over its
// idle gaps, shaded by cause, with the length of a gap where it fits.
// Hovering a gap explains its cause.
#pragma once

#include <vector>

#include "ui/lanes/EventLane.h"
#include "ui/layout/GapGeometry.h"

namespace fuselab::ui {

class GpuStreamLane : public EventLane {
 public:
  // `gaps` are the analysis' gaps of this lane's track in `gap_index`.
  GpuStreamLane(const Trace& trace, const TraceAnalysis& analysis, const PreRecordingOps& before_recording,
                const GapIndex& gap_index, GapIndex::TrackGaps gaps, const LaneLayout& layout, const Lane& lane,
                const TrackDepths& depths, size_t stripe);

  void prepare(const LaneFrame& f) override;
  void drawUnder(const LaneFrame& f) const override;
  LaneHover hover(const LaneFrame& f, ImVec2 mouse) const override;
  void drawDetails(const Theme& theme, const LaneHover& hover) const override;

 private:
  const GapIndex& gap_index_;
  GapIndex::TrackGaps gaps_;
  std::vector<GapRect> gap_rects_;  // this frame's
};

}  // namespace fuselab::ui
