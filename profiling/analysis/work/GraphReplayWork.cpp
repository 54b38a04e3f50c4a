// creditGraphReplays (GraphReplayWork.h).
#include "profiling/analysis/work/GraphReplayWork.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <utility>

#include "profiling/trace/DurationText.h"
#include "profiling/trace/TraceArgs.h"

namespace fuselab {

void creditGraphReplays(const Trace& trace, const std::vector<EventRef>& gpu_ops,
                        const std::vector<uint8_t>& replayed, std::vector<GpuOpWork>& out) {
  if (std::find(replayed.begin(), replayed.end(), 1) == replayed.end()) return;
  using Key = std::pair<uint32_t, std::vector<int64_t>>;  // name id, grid
  auto keyOf = [&](EventRef op) {
    return Key{trace.tracks[op.track].name_id[op.index], argIntArray(trace, op, "grid")};
  };
  // Eager kernels with known work, by key, in start order.
  std::map<Key, std::vector<std::pair<int64_t, size_t>>> eager;
  for (size_t k = 0; k < gpu_ops.size(); ++k)
    if (!replayed[k] && out[k].work && out[k].source)
      eager[keyOf(gpu_ops[k])].push_back({trace.tracks[gpu_ops[k].track].start_ns[gpu_ops[k].index], k});
  for (auto& [key, launches] : eager) std::sort(launches.begin(), launches.end());
  for (size_t k = 0; k < gpu_ops.size(); ++k) {
    if (!replayed[k] || out[k].work) continue;
    const auto it = eager.find(keyOf(gpu_ops[k]));
    const int64_t start = trace.tracks[gpu_ops[k].track].start_ns[gpu_ops[k].index];
    if (it == eager.end() || it->second.front().first >= start) {
      out[k].note += "; no earlier eager launch of this kernel and grid to take the work of";
      continue;
    }
    const auto earlier = std::prev(std::lower_bound(it->second.begin(), it->second.end(),
                                                    std::pair<int64_t, size_t>{start, 0}));
    const GpuOpWork& from = out[earlier->second];
    GpuOpWork& w = out[k];
    w.work = from.work;
    w.source = from.source;
    w.op_kernels = from.op_kernels;
    w.share = from.share;
    w.note = "replayed from a CUDA graph: the work of the same kernel and grid launched eagerly at " +
             formatDuration(earlier->first - trace.beginNs()) + " into the trace" + " (" + from.note + ")";
  }
}

}  // namespace fuselab
