// The workloads fuselab can run, described as data: names, titles,
// descriptions, variants and default sizes. Plain C++, so the viewer knows
// them (tutorial presets, the Workbench panel, --help, sweeps) without
// loading the capture module; kernels/ builds each of them and takes its
// WorkloadInfo from here (WorkloadRegistry.h).
#pragma once

#include <string>
#include <vector>

#include "profiling/capture_api/WorkloadParams.h"

namespace fuselab {

// In the order the window and --help list them.
const std::vector<WorkloadInfo>& workloadCatalog();

// The workload named `name`; throws WorkloadError listing the names otherwise.
const WorkloadInfo& catalogWorkload(const std::string& name);

// `requested`, or the workload's first variant when it is empty; throws
// WorkloadError listing the variants when the workload has no such one.
std::string catalogVariant(const WorkloadInfo& info, const std::string& requested);

}  // namespace fuselab
