#include "profiling/analysis/stacks/CpuStack.h"

#include <algorithm>

#include "profiling/analysis/common/CpuNesting.h"

namespace fuselab {

int64_t CpuStack::enter(uint32_t event) {
  int64_t from = track_.start_ns[event];
  while (!open_.empty() && !nestsIn(track_, event, open_.back().event)) {
    // Past its start: a partial overlap, counted in the open one.
    from = std::max(from, track_.end_ns(open_.back().event));
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
