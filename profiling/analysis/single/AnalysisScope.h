// Which GPU ops the analysis looks at, and over which span (AnalysisScope.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/trace/Trace.h"

namespace fuselab {

struct AnalysisScope {
  bool from_steps = false;  // true: ProfilerStep#k annotations were found
  int64_t start_ns = 0;     // first step start (or trace begin)
  // Last step end, extended to the end of the last in-scope GPU op when the
  // GPU finishes after the CPU left the last step (else trace end).
  int64_t end_ns = 0;
  // GPU ops (kernel / memcpy / memset) in scope, sorted by (track, start).
  // With steps: ops whose launch call (or, with none captured, whose GPU
  // start) falls inside a step. Without steps: every GPU op.
  std::vector<EventRef> gpu_ops;

  int64_t spanNs() const { return end_ns - start_ns; }
};

AnalysisScope findAnalysisScope(const Trace& trace);

// The time a GPU op is attributed by: its launch call's start if captured,
// else its own GPU start.
int64_t attributionTimeNs(const Trace& trace, EventRef gpu_op);

}  // namespace fuselab
