// CUDA-graph mode for any eager workload: one forward is captured into a
// CUDA graph and every forward() replays it (one cudaGraphLaunch).
#pragma once

#include <memory>

#include "profiling/capture_api/Workload.h"

namespace fuselab {

// Warms `eager` up, captures one forward on a side stream and returns the
// replaying workload (same name and region label). Throws WorkloadError in
// builds without CUDA or for a workload on the CPU, WorkloadOutOfMemory when
// the capture runs out of memory.
std::unique_ptr<Workload> makeCudaGraphWorkload(std::unique_ptr<Workload> eager, Device device);

}  // namespace fuselab
