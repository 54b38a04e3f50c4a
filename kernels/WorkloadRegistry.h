// How workloads plug into listWorkloads()/makeWorkload(): each workload file
// defines one entry function, declared here, and adds one line to the table
// in WorkloadRegistry.cpp. What a workload is called and takes (its
// WorkloadInfo) is data in profiling/capture_api/WorkloadCatalog.cpp, which the
// viewer reads without LibTorch; the entry adds how to build it. The
// registry does the shared checks (sizes, device, dtype, memory) so the
// entries only build.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "profiling/capture_api/Workload.h"
#include "profiling/capture_api/WorkloadCatalog.h"

namespace fuselab {

struct WorkloadEntry {
  WorkloadInfo info;  // catalogWorkload(name)
  // Bytes one forward keeps alive on the device (weights, input, live
  // activations, the previous output); checked against free memory.
  double (*estimate_bytes)(const WorkloadParams&) = nullptr;
  // Builds the eager workload. The params are validated, params.variant is
  // one of info.variants, and the device is usable. Graph mode is applied by
  // the registry, not here.
  std::unique_ptr<Workload> (*make)(const WorkloadParams&) = nullptr;
};

std::vector<WorkloadInfo> listWorkloads();
// Checks the parameters (sizes, dtype on the device, memory estimate) and
// builds the workload. Throws WorkloadError with a message for people.
std::unique_ptr<Workload> makeWorkload(const WorkloadParams& params);

WorkloadEntry matmulAddEntry();  // MatmulAddWorkload.cpp
WorkloadEntry linearEntry();     // LinearWorkload.cpp
WorkloadEntry mlpEntry();        // MlpWorkload.cpp
WorkloadEntry fusedMlpEntry();   // FusedMlpWorkload.cpp
WorkloadEntry tpMlpEntry();      // TpMlpWorkload.cpp
WorkloadEntry trainStepEntry();  // TrainStepWorkload.cpp
WorkloadEntry allReduceEntry();  // AllReduceWorkload.cpp

// Bytes free for a new workload: on cuda, free device memory plus what
// LibTorch's caching allocator holds but does not use; on the CPU, the
// kernel's MemAvailable. 0 if unknown.
double availableBytes(Device device);

}  // namespace fuselab
