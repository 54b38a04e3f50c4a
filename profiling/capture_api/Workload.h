// The workload interface: something fuselab can configure from parameters,
// run one forward of, and describe. Eager LibTorch workloads and our own CUDA
// kernels (kernels/) sit behind it; capture and the app only see this
// interface.
#pragma once

#include <string>

#include "profiling/capture_api/WorkloadParams.h"

namespace fuselab {

class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string name() const = 0;         // "mlp"
  virtual std::string regionLabel() const = 0;  // the labelled region of one forward: "mlp_fwd"
  virtual std::string describe() const = 0;     // one line for people: shapes, dtype, variant
  // Enqueues one forward. Does not synchronize; the output stays alive until
  // the next call so the work is not freed under the GPU. Throws
  // WorkloadOutOfMemory when the device runs out of memory.
  virtual void forward() = 0;
  // Waits for all work this workload enqueued (no-op on the CPU).
  virtual void synchronize() = 0;
  // Bytes of weights and FLOPs of one forward (for GB/s and TFLOP/s figures).
  virtual double flopsPerForward() const = 0;
  virtual double weightBytes() const = 0;
  // A rank of a distributed job: Kineto's "distributedInfo" object (backend,
  // rank, world_size, pg_config) as JSON, written into the trace; "" when the
  // workload runs alone.
  virtual std::string distributedInfoJson() const { return {}; }
};

}  // namespace fuselab
