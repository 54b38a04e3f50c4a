#include "profiling/analysis/stacks/CpuStack.h"

#include <algorithm>

namespace fuselab {

int64_t CpuStack::enter(uint32_t event) {
  const int64_t start = track_.start_ns[event], end = track_.end_ns(event);
  int64_t from = start;
  while (!open_.empty()) {
    const int64_t open_end = track_.end_ns(open_.back().event);
    if (open_end > start && open_end >= end) break;  // contains it
    from = std::max(from, open_end);  // past its start: a partial overlap, counted in the open one
    open_.pop_back();
  }
  if (!open_.empty()) from = std::max(from, open_.back().counted_from);
  return from;
}

void CpuStack::takeTime(FlameGraph& g, int64_t ns) const {
  uint32_t held = size() - 2;  // the event below the top
  uint32_t nest = open_.back().parent;
  g.frames[open_[held].frame].cpu_self_ns -= ns;
  // Along a line of parents positions fall; the thread is below them all.
  while (held != nest) {
    if (nest == kThread || (held != kThread && held > nest)) {
      g.frames[open_[held].frame].cpu_total_ns -= ns;
      held = open_[held].parent;
    } else {
      g.frames[open_[nest].frame].cpu_total_ns += ns;
      nest = open_[nest].parent;
    }
  }
}

}  // namespace fuselab
