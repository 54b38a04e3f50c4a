// Work for kernels replayed from a CUDA graph that the trace records no op
// for: the work of an earlier eager launch of the same kernel (same name,
// same grid) in the same trace, which ran the same code on, most likely,
// the same shapes. A replayed kernel without such a launch stays unknown.
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/analysis/work/KernelWork.h"

namespace fuselab {

// `replayed[k]`: gpu_ops[k] was launched by a graph replay. Fills the
// unknown ones in `out` from the latest earlier eager kernel with known work.
void creditGraphReplays(const Trace& trace, const std::vector<EventRef>& gpu_ops,
                        const std::vector<uint8_t>& replayed, std::vector<GpuOpWork>& out);

}  // namespace fuselab
