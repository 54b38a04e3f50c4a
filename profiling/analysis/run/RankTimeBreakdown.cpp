#include "profiling/analysis/run/RankTimeBreakdown.h"

#include <algorithm>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/collectives/CollectiveKind.h"
#include "profiling/analysis/common/Intervals.h"
#include "profiling/analysis/common/PreRecordingOps.h"

namespace fuselab {

namespace {

bool isComputeKernel(std::string_view name) {
  return !isCollectiveKernelName(name) && name.find("Memcpy") == std::string_view::npos &&
         name.find("Sync") == std::string_view::npos && !name.starts_with("Memset");
}

}  // namespace

RankTimeBreakdown rankTimeBreakdown(const Trace& trace) {
  const PreRecordingOps before_recording(trace);
  std::vector<std::pair<int64_t, int64_t>> all, compute;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.kind != TrackKind::Gpu) continue;
    for (uint32_t i = 0; i < t.size(); ++i) {
      const Category c = t.category[i];
      if (!isGpuWork(c) || before_recording.contains({ti, i})) continue;
      all.emplace_back(t.start_ns[i], t.end_ns(i));
      if (c == Category::Kernel && isComputeKernel(trace.strings.get(t.name_id[i])))
        compute.emplace_back(t.start_ns[i], t.end_ns(i));
    }
  }
  RankTimeBreakdown b;
  if (all.empty()) return b;
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const auto& [s, e] : all) first = std::min(first, s), last = std::max(last, e);
  b.span_ns = last - first;
  const int64_t busy = unionLengthNs(std::move(all));
  b.compute_ns = unionLengthNs(std::move(compute));
  b.idle_ns = b.span_ns - busy;
  b.non_compute_ns = busy - b.compute_ns;
  return b;
}

}  // namespace fuselab
