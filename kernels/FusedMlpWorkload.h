// fused_mlp: the GeGLU MLP of the `mlp` workload computed by fuselab's own CUDA
// kernels (FusedMlp.h). Same weights and input as `mlp` for the same seed, same
// region label ("mlp_fwd"), so captures of the two compare side by side.
// Variants: auto (default), small, small_deterministic, large, large_mma, liger.
#pragma once

#include <memory>

#include "kernels/WorkloadRegistry.h"
#include "profiling/capture_api/Workload.h"

namespace fuselab {

// fused_mlp's own rules, checked before any GPU work (so also without a GPU):
// dtype bf16 or fp16, a known variant, the shape rules of checkFusedMlpShape,
// device cuda. Throws WorkloadError saying what is wrong and what is allowed.
void validateFusedMlpParams(const WorkloadParams& params);

// Validates, then builds the workload on the GPU (WorkloadError when there is
// none). Graph mode (params.graph) is applied by makeWorkload, not here.
std::unique_ptr<Workload> makeFusedMlpWorkload(const WorkloadParams& params);

}  // namespace fuselab
