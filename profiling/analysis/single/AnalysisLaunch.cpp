// Launch delay of each GPU op: how long it waited on the device after the
// launch call returned, max(0, gpu_start - (launch_start + launch_dur)).
#include <algorithm>

#include "profiling/analysis/single/Analysis.h"

namespace fuselab {

std::vector<LaunchDelay> computeLaunchDelays(const Trace& trace) {
  std::vector<LaunchDelay> out;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (!isGpuWork(t.category[i]) || t.correlation[i] < 0) continue;
      const LaunchLink* link = trace.launchFor(t.correlation[i]);
      if (!link || !link->launch) continue;
      const Track& lt = trace.tracks[link->launch->track];
      int64_t launch_end = lt.end_ns(link->launch->index);
      out.push_back({EventRef{ti, i}, *link->launch, std::max<int64_t>(0, t.start_ns[i] - launch_end)});
    }
  }
  return out;
}

LaunchDelaySummary summarizeLaunchDelays(const std::vector<LaunchDelay>& delays) {
  LaunchDelaySummary s;
  for (const LaunchDelay& d : delays) {
    ++s.count;
    s.total_ns += d.delay_ns;
    s.max_ns = std::max(s.max_ns, d.delay_ns);
  }
  if (s.count) s.mean_ns = double(s.total_ns) / double(s.count);
  return s;
}

}  // namespace fuselab
