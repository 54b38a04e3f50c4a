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
// a stream. GPU ops launched before recording began (PreRecordingOps.h) are
// left out of the span and the unions, as HTA leaves out GPU ops whose launch
// call is not in the trace. HTA rounds starts up and ends down to whole
// microseconds unless HTA_DISABLE_NS_ROUNDING=1; we keep the nanoseconds
// (docs/runs.md).
#pragma once

#include <cstdint>

#include "profiling/trace/Trace.h"

namespace fuselab {

struct RankTimeBreakdown {
  int64_t span_ns = 0;  // first counted GPU op start to last one end; 0 without any
  int64_t compute_ns = 0;
  int64_t non_compute_ns = 0;
  int64_t idle_ns = 0;

  double fraction(int64_t part) const { return span_ns > 0 ? double(part) / double(span_ns) : 0.0; }
};

// Over every GPU track of the trace (all devices and streams together, as HTA).
RankTimeBreakdown rankTimeBreakdown(const Trace& trace);

}  // namespace fuselab
