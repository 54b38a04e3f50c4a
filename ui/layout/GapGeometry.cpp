#include "ui/layout/GapGeometry.h"

#include <algorithm>
#include <cmath>

namespace fuselab::ui {

GapIndex::GapIndex(const std::vector<GpuGap>& gaps) {
  for (auto& p : prefix_) p.assign(gaps.size() + 1, 0);
  for (size_t i = 0; i < gaps.size(); ++i) {
    for (int c = 0; c < 3; ++c) prefix_[c][i + 1] = prefix_[c][i];
    prefix_[static_cast<int>(gaps[i].cause)][i + 1] += gaps[i].durationNs();
    if (tracks_.empty() || tracks_.back().track != gaps[i].track)
      tracks_.push_back({gaps[i].track, static_cast<uint32_t>(i), static_cast<uint32_t>(i)});
    tracks_.back().end = static_cast<uint32_t>(i + 1);
  }
}

void GapIndex::idleIn(const std::vector<GpuGap>& gaps, uint32_t from, uint32_t to, int64_t a, int64_t b,
                      int64_t out[3]) const {
  out[0] = out[1] = out[2] = 0;
  if (from >= to || a >= b) return;
  auto first = std::upper_bound(gaps.begin() + from, gaps.begin() + to, a,
                                [](int64_t t, const GpuGap& g) { return t < g.end_ns; });
  auto last = std::lower_bound(gaps.begin() + from, gaps.begin() + to, b,
                               [](const GpuGap& g, int64_t t) { return g.start_ns < t; });
  if (first >= last) return;
  auto f = static_cast<size_t>(first - gaps.begin()), l = static_cast<size_t>(last - gaps.begin());
  for (int c = 0; c < 3; ++c) out[c] = prefix_[c][l] - prefix_[c][f];
  // The first and last gap may stick out of [a, b): take off what does.
  auto trim = [&](const GpuGap& g) {
    int64_t outside = std::max<int64_t>(0, a - g.start_ns) + std::max<int64_t>(0, g.end_ns - b);
    out[static_cast<int>(g.cause)] -= std::min(outside, g.durationNs());
  };
  trim(gaps[f]);
  if (l - 1 != f) trim(gaps[l - 1]);
}

void gapRects(const std::vector<GpuGap>& gaps, const GapIndex& index, const LaneLayout& layout, const TimeAxis& axis,
              std::vector<GapRect>& out, float min_gap_px) {
  for (const auto& tg : index.tracks())
    if (const Lane* lane = layout.laneOfTrack(tg.track)) gapRectsOfTrack(gaps, index, tg, *lane, axis, out, min_gap_px);
}

void gapRectsOfTrack(const std::vector<GpuGap>& gaps, const GapIndex& index, const GapIndex::TrackGaps& tg,
                     const Lane& lane, const TimeAxis& axis, std::vector<GapRect>& out, float min_gap_px) {
  if (axis.ns_per_px <= 0) return;
  const double view_begin = axis.start_ns, view_end = axis.endNs();
  const float left = axis.origin_px - 1, right = axis.origin_px + axis.width_px + 1;
  float y0 = lane.top, y1 = lane.top + lane.height;
  auto begin = gaps.begin() + tg.begin, end = gaps.begin() + tg.end;
  auto it = std::upper_bound(begin, end, static_cast<int64_t>(std::floor(view_begin)),
                             [](int64_t t, const GpuGap& g) { return t < g.end_ns; });
  float next_column = left;  // columns already summarised end here
  while (it != end && static_cast<double>(it->start_ns) < view_end) {
    float x0 = axis.nsToX(static_cast<double>(it->start_ns));
    float x1 = axis.nsToX(static_cast<double>(it->end_ns));
    auto gi = static_cast<uint32_t>(it - gaps.begin());
    if (x1 - x0 >= min_gap_px) {
      out.push_back({std::max(x0, left), std::min(x1, right), y0, y1, it->cause, 1.0f, gi, 1, it->covered_by_sync});
      ++it;
      continue;
    }
    // Narrow gap: summarise its pixel column, from this gap on.
    float col_x0 = std::max(std::floor(x0), next_column);
    float col_x1 = col_x0 + 1;
    next_column = col_x1;
    auto a = static_cast<int64_t>(std::floor(std::max(axis.xToNs(col_x0), static_cast<double>(it->start_ns))));
    auto b = static_cast<int64_t>(std::ceil(axis.xToNs(col_x1)));
    int64_t idle[3];
    index.idleIn(gaps, gi, tg.end, a, b, idle);
    // Gaps that end inside the column are done; one reaching past it stays
    // current and is summarised again in the next column.
    auto next = std::lower_bound(it, end, b, [](const GpuGap& g, int64_t t) { return g.end_ns <= t; });
    int dominant = static_cast<int>(std::max_element(idle, idle + 3) - idle);
    double total = static_cast<double>(idle[0] + idle[1] + idle[2]);
    auto coverage = static_cast<float>(std::min(1.0, total / axis.ns_per_px));
    if (coverage > 0.02f)
      out.push_back({col_x0, col_x1, y0, y1, static_cast<GapCause>(dominant), coverage, gi,
                     static_cast<uint32_t>(std::max<ptrdiff_t>(1, next - it)), false});
    it = next;
  }
}

}  // namespace fuselab::ui
