// Whether this machine shows an NVIDIA GPU, asked without CUDA (so without
// loading the capture module): the driver's /proc/driver/nvidia/gpus/ entries,
// or WSL's GPU device /dev/dxg. A hint for defaults (the Workbench's device);
// the capture module's gpuAvailable() is the answer once it is loaded.
#pragma once

namespace fuselab {

bool nvidiaGpuVisible();

}  // namespace fuselab
