#include "ui/layout/FlowEndpoints.h"

#include <algorithm>

namespace fuselab::ui {

namespace {

void addLaunchFlows(const Trace& trace, EventRef launch, std::vector<FlowLink>& out, size_t max_links) {
  const Track& t = trace.tracks[launch.track];
  int64_t corr = t.correlation[launch.index];
  if (corr < 0) return;
  const LaunchLink* link = trace.launchFor(corr);
  if (!link) return;
  for (const EventRef& op : link->gpu_ops) {
    if (out.size() >= max_links) return;
    out.push_back({launch, op});
  }
}

}  // namespace

std::vector<FlowLink> flowsForEvent(const Trace& trace, EventRef selected, size_t max_links) {
  std::vector<FlowLink> out;
  if (selected.track >= trace.tracks.size() || selected.index >= trace.tracks[selected.track].size()) return out;
  const Track& t = trace.tracks[selected.track];
  Category cat = t.category[selected.index];

  if (isLaunchCall(cat)) {
    addLaunchFlows(trace, selected, out, max_links);
  } else if (isGpuWork(cat)) {
    int64_t corr = t.correlation[selected.index];
    if (const LaunchLink* link = corr >= 0 ? trace.launchFor(corr) : nullptr; link && link->launch)
      out.push_back({*link->launch, selected});
  } else if (t.kind == TrackKind::Cpu) {
    // Launch calls nested in the selected op: they follow it in the sorted
    // track, start before it ends and sit deeper.
    int64_t end = t.end_ns(selected.index);
    uint16_t depth = t.depth[selected.index];
    for (size_t i = selected.index + 1; i < t.size() && t.start_ns[i] < end && out.size() < max_links; ++i) {
      if (t.depth[i] > depth && isLaunchCall(t.category[i]))
        addLaunchFlows(trace, EventRef{selected.track, static_cast<uint32_t>(i)}, out, max_links);
    }
  }
  // Other recorded flows that touch the event.
  for (const Flow& f : trace.flows) {
    if (out.size() >= max_links) break;
    if (f.from == selected || f.to == selected) out.push_back({f.from, f.to});
  }
  return out;
}

std::vector<FlowArrow> flowArrows(const Trace& trace, const std::vector<FlowLink>& links, const LaneLayout& layout,
                                  const TimeAxis& axis) {
  std::vector<FlowArrow> out;
  out.reserve(links.size());
  auto anchor = [&](EventRef e, float& x, float& y) {
    if (e.track >= trace.tracks.size() || e.index >= trace.tracks[e.track].size()) return false;
    const Lane* lane = layout.laneOfTrack(e.track);
    if (!lane) return false;
    const Track& t = trace.tracks[e.track];
    x = axis.nsToX(static_cast<double>(t.start_ns[e.index]));
    y = layout.rowCenter(*lane, t.depth[e.index]);
    return true;
  };
  for (const FlowLink& l : links) {
    FlowArrow a;
    a.link = l;
    if (anchor(l.from, a.x0, a.y0) && anchor(l.to, a.x1, a.y1)) out.push_back(a);
  }
  return out;
}

}  // namespace fuselab::ui
