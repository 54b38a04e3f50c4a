// ProcessGroupNCCL for one rank on cuda:local_rank (kernels/ProcessGroupSetup.h).
// Apart from the Gloo setup: its headers need CUDA and NCCL's.
#include "kernels/ProcessGroupSetup.h"

#ifdef FUSELAB_HAVE_NCCL
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include <cstdlib>
#endif

namespace fuselab {

void joinNccl(ProcessGroup& pg) {
#ifdef FUSELAB_HAVE_NCCL
  const int gpus = static_cast<int>(c10::cuda::device_count());
  if (pg.local_rank >= gpus)
    throw WorkloadError("rank " + std::to_string(pg.rank) + " uses GPU " + std::to_string(pg.local_rank) +
                        " (LOCAL_RANK, else its rank: one GPU per rank), and this machine has " +
                        std::to_string(gpus) + " GPU(s)");
  // What every process fuselab starts has: no NVLink SHARP (NVLS), no
  // multicast objects for symmetric memory (also for a world of one run in
  // this process, outside the launcher).
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);
  ::setenv("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1", 1);
  c10::cuda::set_device(static_cast<c10::DeviceIndex>(pg.local_rank));
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = std::chrono::milliseconds(kProcessGroupTimeout);
  auto nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(pg.store, pg.rank, pg.world_size, options);
  pg.nccl_version = c10d::getNcclVersion();
  pg.backend = nccl;
  pg.backend_name = "nccl";
#else
  (void)pg;
  throw WorkloadError("this fuselab build has no NCCL (built without CUDA or without nccl.h): use --device cpu (Gloo)");
#endif
}

}  // namespace fuselab
