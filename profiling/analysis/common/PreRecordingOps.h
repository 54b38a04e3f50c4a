// GPU ops launched before recording began: a collective issued before the
// profiler started can spin hundreds of milliseconds into the recorded
// steps, with its launch call (and the CPU side around it) not in the trace.
//
// Holistic Trace Analysis keeps only GPU ops whose correlation id matches a
// CPU-side event of the trace (Trace._filter_irrelevant_gpu_kernels, for
// traces of two or more ProfilerSteps). Our rule, per rank of a merged run
// (per trace otherwise): where at least one GPU op is linked to its launch
// call, a GPU op (kernel, memcpy, memset) with no launch call in the trace
// was launched before recording began when it starts before the rank's first
// linked launch call (no recorded call can have enqueued it), or when it
// follows such an op on its stream with only ops lacking a launch call
// between them (a stream runs its ops in launch order). That is every op HTA
// drops in torch.profiler traces; an op without a launch call that starts
// later (its record lost) is kept, where HTA drops it. A rank without any
// linked launch (no CPU side, or exported without correlation ids) keeps
// all its ops.
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/trace/Trace.h"

namespace fuselab {

class PreRecordingOps {
 public:
  PreRecordingOps() = default;
  explicit PreRecordingOps(const Trace& trace);  // a finalized trace

  // Whether GPU op `op` (a kernel, memcpy or memset) was launched before
  // recording began.
  bool contains(EventRef op) const { return op.track < recorded_from_.size() && op.index < recorded_from_[op.track]; }
  size_t count() const { return count_; }

 private:
  // Per track: its GPU ops before this index were launched before recording.
  std::vector<uint32_t> recorded_from_;
  size_t count_ = 0;
};

}  // namespace fuselab
