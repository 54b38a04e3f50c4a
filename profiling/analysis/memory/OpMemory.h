// The memory each CPU-side event allocated, as torch.profiler's
// key_averages() counts it (torch/autograd/profiler.py, _parse_kineto_results
// and EventList._build_tree), so that our per-op figures equal torch's:
// - an op's memory is the sum of the `[memory]` bytes whose time lies in
//   [start, end] of the op, on any thread;
// - its self memory is that minus its children's, the children being the
//   events nested in it on its thread (python_function events and torch's
//   filtered utility ops are not events there);
// - an event that is the only child of one of the same name is merged into
//   it (EventList._remove_dup_nodes): it counts nothing of its own.
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/trace/MemoryEvents.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct OpMemoryBytes {
  int64_t cpu = 0;     // CPU memory allocated (net) inside the op
  int64_t device = 0;  // device (CUDA) memory
  int64_t self_cpu = 0;
  int64_t self_device = 0;
  bool counted = false;  // an event of torch's tables: not merged, not filtered
};

struct OpMemory {
  // per_track[t][i]: event i of track t; empty for tracks that are not CPU threads.
  std::vector<std::vector<OpMemoryBytes>> per_track;
  // Bytes of memory events inside no counted event (torch's `[memory]` row).
  int64_t unattributed_cpu = 0;
  int64_t unattributed_device = 0;
  uint64_t unattributed_events = 0;
  bool empty() const { return per_track.empty(); }
};

// Events torch's tables count (cpu_op, user_annotation, cuda_runtime,
// cuda_driver, minus its filtered utility names).
bool countsForOpMemory(const Trace& trace, EventRef event);

// Empty when `memory` has no events.
OpMemory opMemory(const Trace& trace, const MemoryEvents& memory);

}  // namespace fuselab
