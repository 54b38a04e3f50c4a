// The time a GPU op adds to its stream. On one stream ops run in order, yet a
// kernel started early by programmatic dependent launch (sm_90) appears in
// the trace from its launch on, overlapping the kernel before it, and waits
// inside its own interval for that one to finish. Its work takes the time
// from the end of everything before it on the stream to its own end; a
// kernel wholly inside an earlier one (concurrent branches of a CUDA graph
// reported on one stream) keeps its own duration.
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/trace/Trace.h"

namespace fuselab {

// One entry per op, in the order given.
std::vector<int64_t> streamTimes(const Trace& trace, const std::vector<EventRef>& ops);

}  // namespace fuselab
