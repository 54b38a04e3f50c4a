#include "profiling/analysis/run/RunNcclChannels.h"

#include <algorithm>
#include <climits>

namespace fuselab {

std::vector<NcclKernelChannels> ncclChannelsOnLanes(const RunView& view) {
  std::vector<NcclKernelChannels> out;
  if (!view.analysis) return out;
  const RunAnalysis& a = *view.analysis;
  const Trace& merged = *view.merged.trace;
  for (const CollectiveStats& s : a.collectives)
    for (const CollectiveArrival& arrival : s.arrivals) {
      if (arrival.rank_pos >= a.nccl.size() || arrival.index >= a.nccl[arrival.rank_pos].details.size()) continue;
      const auto& detail = a.nccl[arrival.rank_pos].details[arrival.index];
      if (!detail || detail->channel_times.empty()) continue;
      const std::optional<EventRef> kernel = view.mergedEvent(arrival.rank_pos, arrival.event);
      if (!kernel) continue;  // that rank's lanes are not loaded
      // The channel times are on the rank's own clock: keep their offset from the kernel's start.
      const int64_t own_start = a.collectives_per_rank[arrival.rank_pos][arrival.index].start_ns;
      const int64_t shown_start = merged.tracks[kernel->track].start_ns[kernel->index];
      NcclKernelChannels k{*kernel, s.name + " " + s.group + " #" + std::to_string(s.index) + ", " + detail->algo +
                                        " " + detail->proto, {}};
      k.begin_ns = INT64_MAX, k.end_ns = INT64_MIN;
      for (NcclChannelTime t : detail->channel_times) {
        t.start_ns += shown_start - own_start;
        t.stop_ns += shown_start - own_start;
        k.begin_ns = std::min(k.begin_ns, t.start_ns);
        k.end_ns = std::max(k.end_ns, t.stop_ns);
        k.channels.push_back(t);
      }
      std::sort(k.channels.begin(), k.channels.end(), [](const auto& x, const auto& y) { return x.channel < y.channel; });
      out.push_back(std::move(k));
    }
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.begin_ns < y.begin_ns; });
  return out;
}

}  // namespace fuselab
