// How workloads plug into listWorkloads()/makeWorkload(): each workload file
// defines one entry function, declared here, and adds one line to the table
// in WorkloadRegistry.cpp. The registry does the shared checks (sizes, device,
// dtype, memory) so the entries only build.
#pragma once

#include <cstdint>
#include <memory>

#include "kernels/Workload.h"

namespace fuselab {

struct WorkloadEntry {
  WorkloadInfo info;
  // Bytes one forward keeps alive on the device (weights, input, live
  // activations, the previous output); checked against free memory.
  double (*estimate_bytes)(const WorkloadParams&) = nullptr;
  // Builds the eager workload. The params are validated, params.variant is
  // one of info.variants, and the device is usable. Graph mode is applied by
  // the registry, not here.
  std::unique_ptr<Workload> (*make)(const WorkloadParams&) = nullptr;
};

WorkloadEntry matmulAddEntry();  // MatmulAddWorkload.cpp
WorkloadEntry linearEntry();     // LinearWorkload.cpp
WorkloadEntry mlpEntry();        // MlpWorkload.cpp
WorkloadEntry fusedMlpEntry();   // FusedMlpWorkload.cpp

// Size limits checked by makeWorkload (inclusive). The memory check usually
// rejects large shapes well before these.
struct SizeLimits {
  static constexpr int64_t kMin = 1;
  static constexpr int64_t kMaxBatch = 1 << 20;
  static constexpr int64_t kMaxSeq = 1 << 20;
  static constexpr int64_t kMaxDim = 1 << 16;
  static constexpr int64_t kMaxHidden = 1 << 18;
  static constexpr int64_t kMaxOut = 1 << 16;
};

// Throws WorkloadError unless every size is within SizeLimits; the message
// names the parameter, the value and the allowed range.
void checkSizes(const WorkloadParams& params);

// Bytes free for a new workload: on cuda, free device memory plus what
// LibTorch's caching allocator holds but does not use; on the CPU, the
// kernel's MemAvailable. 0 if unknown.
double availableBytes(Device device);

}  // namespace fuselab
