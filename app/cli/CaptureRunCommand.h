// `fuselab capture --workload tp_mlp --ranks N ...`: the distributed branch
// of the capture command (DistributedCapture.h), which prints the run's
// analysis as `fuselab analyze DIR` does.
#pragma once

#include <string>

#include "profiling/capture_api/CaptureTypes.h"
#include "profiling/capture_api/WorkloadParams.h"

namespace fuselab {

struct CaptureRunArgs {
  std::string out;  // keep the run folder here; "" = a temporary one, removed after the report
  bool json = false;
  int timeout_s = 300;
};

// Exit codes as capture's: 0 ok, 1 a failed rank or write, 2 a bad value.
int runCaptureRunCommand(const WorkloadParams& params, const CaptureOptions& options, const CaptureRunArgs& args);

}  // namespace fuselab
