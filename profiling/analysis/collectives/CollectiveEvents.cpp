#include "profiling/analysis/collectives/CollectiveEvents.h"

#include <algorithm>

namespace fuselab {

namespace {

// Ops on the CPU that describe a collective: torch's record_param_comms,
// the backend's "nccl:all_reduce" annotation and c10d's "c10d::allreduce_".
bool isCollectiveCpuOp(std::string_view name) {
  return name == "record_param_comms" || name.starts_with("nccl:") || name.starts_with("c10d::");
}

// The ops enclosing `e` on its track (innermost first), by depth: each
// ancestor is the latest earlier event one level up that still covers it.
std::vector<EventRef> enclosingOps(const Trace& trace, EventRef e) {
  std::vector<EventRef> out;
  const Track& t = trace.tracks[e.track];
  const int64_t at = t.start_ns[e.index];
  int want = int(t.depth[e.index]) - 1;
  for (uint32_t i = e.index; i-- > 0 && want >= 0;) {
    if (t.depth[i] != want) continue;
    if (t.end_ns(i) >= at) out.push_back({e.track, i});
    --want;  // covering or not, an earlier event at this depth cannot cover `e`
  }
  return out;
}

void describeGpuCollective(const Trace& trace, CollectiveEvent& c) {
  const Track& t = trace.tracks[c.event.track];
  c.kind = collectiveKindFromText(trace.strings.get(t.name_id[c.event.index]));
  c.kernel_kind = c.kind;
  c.group = "stream " + std::to_string(t.stream >= 0 ? t.stream : t.tid);
  const LaunchLink* link = trace.launchFor(t.correlation[c.event.index]);
  if (!link || !link->launch) return;
  c.launch = link->launch;
  c.launch_ns = trace.tracks[link->launch->track].start_ns[link->launch->index];
  // Outermost first, so the innermost op's statements win.
  auto ops = enclosingOps(trace, *link->launch);
  for (auto it = ops.rbegin(); it != ops.rend(); ++it)
    if (isCollectiveCpuOp(trace.name(*it))) readCollectiveMetadata(trace, *it, c);
}

}  // namespace

bool collectiveArgsNeeded(std::string_view op_name) { return isCollectiveCpuOp(op_name) || isCpuCollectiveName(op_name); }

std::vector<CollectiveEvent> findCollectives(const Trace& trace) {
  std::vector<CollectiveEvent> out;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    for (uint32_t i = 0; i < t.size(); ++i) {
      const std::string_view name = trace.strings.get(t.name_id[i]);
      const bool gpu = t.category[i] == Category::Kernel && isCollectiveKernelName(name);
      if (!gpu && !(t.kind == TrackKind::Cpu && isCpuCollectiveName(name))) continue;
      CollectiveEvent c;
      c.event = {ti, i};
      c.on_gpu = gpu;
      c.start_ns = t.start_ns[i];
      c.end_ns = t.end_ns(i);
      if (gpu) {
        describeGpuCollective(trace, c);
      } else {
        c.group = "gloo";
        c.kind = collectiveKindFromText(name.substr(name.find(':') + 1));
        readCollectiveMetadata(trace, c.event, c);
      }
      c.name = c.kind == CollectiveKind::Other ? std::string(name) : std::string(collectiveKindName(c.kind));
      out.push_back(std::move(c));
    }
  }
  std::sort(out.begin(), out.end(), [](const CollectiveEvent& a, const CollectiveEvent& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns < b.end_ns;
  });
  return out;
}

}  // namespace fuselab
