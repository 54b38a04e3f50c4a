#include "profiling/analysis/common/StreamTime.h"

#include <algorithm>
#include <map>

namespace fuselab {

std::vector<int64_t> streamTimes(const Trace& trace, const std::vector<EventRef>& ops) {
  // Per track touched: the latest end among the GPU ops before each event
  // (events are sorted by start; annotations on the track do not count).
  std::map<uint32_t, std::vector<int64_t>> ended_before;
  for (const EventRef& op : ops) {
    auto [it, added] = ended_before.try_emplace(op.track);
    if (!added) continue;
    const Track& t = trace.tracks[op.track];
    it->second.resize(t.size());
    int64_t latest = INT64_MIN;
    for (size_t i = 0; i < t.size(); ++i) {
      it->second[i] = latest;
      if (isGpuWork(t.category[i])) latest = std::max(latest, t.end_ns(i));
    }
  }
  std::vector<int64_t> out;
  out.reserve(ops.size());
  for (const EventRef& op : ops) {
    const Track& t = trace.tracks[op.track];
    const int64_t start = t.start_ns[op.index], end = t.end_ns(op.index);
    const int64_t from = std::max(start, ended_before[op.track][op.index]);
    out.push_back(from < end ? end - from : t.dur_ns[op.index]);
  }
  return out;
}

}  // namespace fuselab
