// Where to shade GPU idle gaps: one rectangle per gap that is at least a
// pixel or two wide, and, where gaps are narrower than that, one rectangle
// per pixel column carrying the share of that column that was idle and the
// dominant cause. The per-frame work depends on the view width, not on the
// number of gaps (prefix sums per cause answer "idle time in [a, b)").
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/analysis/single/AnalysisGaps.h"
#include "ui/layout/LaneLayout.h"
#include "ui/layout/TimeAxis.h"

namespace fuselab::ui {

struct GapRect {
  float x0 = 0, x1 = 0, y0 = 0, y1 = 0;  // x on screen, y in layout coordinates (the lane band)
  GapCause cause = GapCause::Other;
  float coverage = 1;      // 1 for a single gap; share of the column that is idle otherwise
  uint32_t gap = 0;        // index into the gaps vector of the (first) gap
  uint32_t count = 1;      // gaps summarised by this rect
  bool covered_by_sync = false;  // a CPU synchronize call spans the gap (single gaps only)
};

// Built once per analysis: the gaps of each track with prefix sums per cause.
class GapIndex {
 public:
  GapIndex() = default;
  // `gaps` sorted by (track, start), as findGpuGaps returns them.
  explicit GapIndex(const std::vector<GpuGap>& gaps);

  struct TrackGaps {
    uint32_t track = 0;
    uint32_t begin = 0, end = 0;  // range in the gaps vector
  };
  const std::vector<TrackGaps>& tracks() const { return tracks_; }
  // Idle time per cause inside [a, b), counting gaps [from, to) of the vector
  // only (all of one track), clipped to [a, b).
  void idleIn(const std::vector<GpuGap>& gaps, uint32_t from, uint32_t to, int64_t a, int64_t b,
              int64_t out_by_cause[3]) const;

 private:
  std::vector<TrackGaps> tracks_;
  std::vector<int64_t> prefix_[3];  // prefix_[cause][i] = sum of durations of gaps [0, i) with that cause
};

// Rects for every lane of `layout` that has gaps. `min_gap_px`: narrower
// gaps are summarised per pixel column.
void gapRects(const std::vector<GpuGap>& gaps, const GapIndex& index, const LaneLayout& layout, const TimeAxis& axis,
              std::vector<GapRect>& out, float min_gap_px = 2.0f);
// The same for one track's gaps (`track`, from index.tracks()) in its lane.
void gapRectsOfTrack(const std::vector<GpuGap>& gaps, const GapIndex& index, const GapIndex::TrackGaps& track,
                     const Lane& lane, const TimeAxis& axis, std::vector<GapRect>& out, float min_gap_px = 2.0f);

}  // namespace fuselab::ui
