// Which open CPU event another nests in, as torch's
// EventList._populate_cpu_children decides (events walked by start, longest
// first, with a stack of the open ones): only one that contains it. An open
// event that ended before it starts, or that ends before it does (it only
// partly overlaps it, as a record_function annotation does the Python call
// that begins it), is not its parent and is dropped. The flame graph
// (stacks/CpuStack.h) and the per-op memory (memory/OpMemory.h) both nest so.
#pragma once

#include <cstdint>

#include "profiling/trace/Trace.h"

namespace fuselab {

// Whether event `inner` of `t` nests in open event `outer`.
inline bool nestsIn(const Track& t, uint32_t inner, uint32_t outer) {
  return t.end_ns(outer) > t.start_ns[inner] && t.end_ns(outer) >= t.end_ns(inner);
}

}  // namespace fuselab
