// The run parts of TimelineView (TimelineView.h): ranks that collapse,
// collectives drawn as links across the ranks' events, and NCCL kernels'
// channels as thin rows under their lanes.
#include <imgui.h>

#include <algorithm>

#include "profiling/trace/DurationText.h"
#include "ui/TimelineView.h"

namespace fuselab::ui {

void TimelineView::setCollectiveLinks(std::vector<CollectiveLink> links) {
  std::sort(links.begin(), links.end(), [](const auto& a, const auto& b) { return a.begin_ns < b.begin_ns; });
  longest_link_ns_ = 0;
  for (const CollectiveLink& l : links) longest_link_ns_ = std::max(longest_link_ns_, l.end_ns - l.begin_ns);
  links_ = std::move(links);
}

void TimelineView::setNcclChannels(std::vector<NcclKernelChannels> kernels) {
  longest_nccl_ns_ = 0;
  for (const NcclKernelChannels& k : kernels) longest_nccl_ns_ = std::max(longest_nccl_ns_, k.end_ns - k.begin_ns);
  nccl_channels_ = std::move(kernels);
  if (show_nccl_channels_) layout_row_height_ = 0;  // relayout at the next draw
}

void TimelineView::showNcclChannels(bool show) {
  show_nccl_channels_ = show;
  layout_row_height_ = 0;
}

void TimelineView::drawNcclChannels(const Theme& th, ImDrawList* dl, ImVec2 content, float vis_top,
                                    float vis_bottom) const {
  const double view_begin = axis_.start_ns, view_end = axis_.endNs();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const NcclKernelChannels* hovered = nullptr;
  const NcclChannelTime* hovered_bar = nullptr;
  auto first = std::lower_bound(nccl_channels_.begin(), nccl_channels_.end(), view_begin - double(longest_nccl_ns_),
                                [](const NcclKernelChannels& k, double t) { return double(k.begin_ns) < t; });
  for (auto it = first; it != nccl_channels_.end() && double(it->begin_ns) <= view_end; ++it) {
    const NcclKernelChannels& k = *it;
    const Lane* lane = layout_.laneOfTrack(k.kernel.track);
    if (!lane || lane->sub_rows == 0) continue;
    const float top = lane->subRowsTop();
    if (top + float(lane->sub_rows) * lane->sub_row_height < vis_top || top > vis_bottom) continue;
    for (size_t r = 0; r < k.channels.size() && r < lane->sub_rows; ++r) {
      const NcclChannelTime& b = k.channels[r];
      if (double(b.stop_ns) < view_begin || double(b.start_ns) > view_end) continue;
      const float y0 = content.y + top + float(r) * lane->sub_row_height;
      const ImVec2 p0(axis_.nsToX(double(b.start_ns)), y0);
      const ImVec2 p1(std::max(axis_.nsToX(double(b.stop_ns)), p0.x + 1.0f), y0 + lane->sub_row_height - 1.0f);
      dl->AddRectFilled(p0, p1, th.collective);
      if (mouse.x >= p0.x && mouse.x <= p1.x && mouse.y >= p0.y && mouse.y <= p1.y) hovered = &k, hovered_bar = &b;
    }
  }
  if (hovered && ImGui::IsWindowHovered())
    ImGui::SetTooltip("channel %d of %s\n%s on the GPU", hovered_bar->channel, hovered->label.c_str(),
                      formatDuration(hovered_bar->stop_ns - hovered_bar->start_ns).c_str());
}

void TimelineView::toggleRank(int rank) {
  auto it = std::find(collapsed_ranks_.begin(), collapsed_ranks_.end(), rank);
  if (it == collapsed_ranks_.end())
    collapsed_ranks_.push_back(rank);
  else
    collapsed_ranks_.erase(it);
  layout_row_height_ = 0;  // relayout at the next draw
}

bool TimelineView::rankCollapsed(int rank) const {
  return std::find(collapsed_ranks_.begin(), collapsed_ranks_.end(), rank) != collapsed_ranks_.end();
}

void TimelineView::scrollToRank(int rank) {
  if (rankCollapsed(rank)) toggleRank(rank);
  pending_rank_ = rank;
}

std::optional<ImVec2> TimelineView::rankHeaderPos(int rank) const {
  const LaneGroupHeader* h = layout_.rankHeader(rank);
  if (!h) return std::nullopt;
  ImVec2 p(lanes_clip_min_.x - 20, lanes_origin_.y + h->top + h->height * 0.5f);
  if (p.y < lanes_clip_min_.y || p.y > lanes_clip_max_.y) return std::nullopt;
  return p;
}

void TimelineView::drawCollectiveLinks(const Theme& th, ImDrawList* dl, ImVec2 content, float vis_top,
                                       float vis_bottom) {
  if (links_.empty()) return;
  constexpr size_t kMaxLinks = 400;  // beyond this many in view they are noise; zoom in
  const double view_begin = axis_.start_ns, view_end = axis_.endNs();
  auto first = std::lower_bound(links_.begin(), links_.end(), view_begin - longest_link_ns_,
                                [](const CollectiveLink& l, double t) { return l.begin_ns < t; });
  // Where an event's arrival is drawn: its lane's row, or its rank's header when collapsed.
  auto pointOf = [&](EventRef e, ImVec2& p) {
    const Track& t = trace_->tracks[e.track];
    float y;
    if (const Lane* lane = layout_.laneOfTrack(e.track)) {
      y = layout_.rowCenter(*lane, t.depth[e.index]);
    } else if (const LaneGroupHeader* h = layout_.rankHeader(t.rank)) {
      y = h->top + h->height * 0.5f;
    } else {
      return false;
    }
    p = ImVec2(axis_.nsToX(static_cast<double>(t.start_ns[e.index])), content.y + y);
    return true;
  };
  size_t drawn = 0;
  std::vector<ImVec2> points;
  for (auto it = first; it != links_.end() && it->begin_ns <= view_end && drawn < kMaxLinks; ++it) {
    if (it->end_ns < view_begin) continue;
    points.clear();
    ImVec2 late(0, 0);
    bool late_shown = false;
    for (size_t i = 0; i < it->events.size(); ++i) {
      ImVec2 p;
      if (!pointOf(it->events[i], p)) continue;
      points.push_back(p);
      if (i == it->late) late = p, late_shown = true;
    }
    if (points.size() < 2) continue;
    std::sort(points.begin(), points.end(), [](ImVec2 a, ImVec2 b) { return a.y < b.y; });
    if (points.back().y < content.y + vis_top || points.front().y > content.y + vis_bottom) continue;
    dl->AddPolyline(points.data(), static_cast<int>(points.size()), th.collective, 0, 1.5f * th.scale);
    for (const ImVec2& p : points) dl->AddCircleFilled(p, 2.5f * th.scale, th.collective);
    if (late_shown) {
      const float s = 5 * th.scale;
      dl->AddTriangleFilled(ImVec2(late.x, late.y + s * 0.2f), ImVec2(late.x - s, late.y - s * 1.6f),
                            ImVec2(late.x + s, late.y - s * 1.6f), th.late_arrival);
    }
    ++drawn;
  }
}

}  // namespace fuselab::ui
