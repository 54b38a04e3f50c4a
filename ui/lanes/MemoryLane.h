// A device's memory over time (MemorySummary.h): allocated bytes filled,
// reserved bytes as a line above, each pixel the largest value in effect
// there (MemoryFolding.h); the peak marked with its op. Hover shows the
// bytes and the op in flight.
#pragma once

#include "profiling/analysis/memory/MemorySummary.h"
#include "profiling/trace/Trace.h"
#include "ui/lanes/TimelineLane.h"
#include "ui/layout/LaneLayout.h"
#include "ui/layout/MemoryFolding.h"

namespace fuselab::ui {

class MemoryLane : public TimelineLane {
 public:
  // All kept by reference.
  MemoryLane(const Trace& trace, const DeviceMemory& device, const MemoryLaneSlot& slot, size_t stripe);

  float top() const override { return slot_.top; }
  float bottom() const override { return slot_.top + slot_.height; }
  void prepare(const LaneFrame& f) override;
  void drawBackground(const LaneFrame& f) const override;
  void drawEvents(const LaneFrame& f) const override;
  void drawLabel(const LaneFrame& f) const override;
  LaneHover hover(const LaneFrame& f, ImVec2 mouse) const override;
  void drawHover(const LaneFrame& f, const LaneHover& hover) const override;
  void drawDetails(const Theme& theme, const LaneHover& hover) const override;

 private:
  float yOf(const LaneFrame& f, int64_t bytes) const;

  const Trace& trace_;
  const DeviceMemory& device_;
  const MemoryLaneSlot& slot_;
  size_t stripe_;
  MemoryFolding folding_;
  int64_t scale_bytes_ = 1;  // the lane's full height
  std::vector<MemoryColumn> columns_;  // this frame's
};

// The memory tooltip: time, allocated and reserved bytes, the op in flight.
void drawMemoryPointTooltip(const Trace& trace, const DeviceMemory& device, size_t point);

}  // namespace fuselab::ui
