// A communicator's records as the side file holds them (the format is
// read back by profiling/trace/NcclProfile.h): descriptors, channel times
// from the GPU's global timer, host times on CLOCK_MONOTONIC, what was
// dropped. Records still being filled in are left out.
#pragma once

#include <nlohmann/json.hpp>

#include "profiling/nccl_profiler/NcclCommRecorder.h"

namespace fuselab::nccl_profiler {

// `finalized`: NCCL called finalize (false: written at the process' exit).
nlohmann::json commJson(const CommRecorder& comm, const PluginOptions& options, bool finalized);

}  // namespace fuselab::nccl_profiler
