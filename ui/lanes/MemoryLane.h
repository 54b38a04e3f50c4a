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

  const DeviceMemory& device() const { return device_; }
  const MemoryFolding& folding() const { return folding_; }

 private:
  float yOf(const LaneFrame& f, int64_t bytes) const;

  const Trace& trace_;
  const DeviceMemory& device_;
  const MemoryLaneSlot& slot_;
  size_t stripe_;
  MemoryFolding folding_;
  int64_t scale_bytes_ = 1;  // the lane's full height
  std::vector<MemoryColumn> columns_;  // this frame's
  // The view columns_ were folded for: a frame whose view did not move
  // reuses them, so a still frame costs the same at 1k and 1M events.
  struct FoldedFor {
    double start_ns = 0, ns_per_px = 0;
    float origin_px = 0, x0 = 0, x1 = 0;
    bool operator==(const FoldedFor&) const = default;
  };
  std::optional<FoldedFor> folded_for_;
};

// The memory tooltip: time, allocated and reserved bytes, the op in flight.
void drawMemoryPointTooltip(const Trace& trace, const DeviceMemory& device, size_t point);

}  // namespace fuselab::ui
