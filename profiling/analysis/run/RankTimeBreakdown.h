// Where a rank's GPU time went, split as Holistic Trace Analysis'
// get_temporal_breakdown splits it: over the span from the first GPU op's
// start to the last one's end, compute = the union of compute kernels,
// non-compute = the rest of the GPU ops' union (communication kernels,
// copies, memsets), idle = the span minus the union of all GPU ops. A NCCL
// kernel that spins waiting for a late peer is non-compute, not compute:
// GPU utilization counts it as busy, this split does not.
// Kernels are non-compute as HTA names them: nccl*Kernel*, names holding
// "Memcpy" or "Sync", names starting with "Memset". Synchronization events
// are not GPU work (DESIGN.md) and are left out; HTA counts those that carry
// a stream.
#pragma once

#include <cstdint>

#include "profiling/trace/Trace.h"

namespace fuselab {

struct RankTimeBreakdown {
  int64_t span_ns = 0;  // first GPU op start to last GPU op end; 0 without GPU ops
  int64_t compute_ns = 0;
  int64_t non_compute_ns = 0;
  int64_t idle_ns = 0;

  double fraction(int64_t part) const { return span_ns > 0 ? double(part) / double(span_ns) : 0.0; }
};

// Over every GPU track of the trace (all devices and streams together, as HTA).
RankTimeBreakdown rankTimeBreakdown(const Trace& trace);

}  // namespace fuselab
