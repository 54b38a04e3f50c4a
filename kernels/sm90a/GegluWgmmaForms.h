// The forms of the Hopper GeGLU GEMM besides FusedMlpGegluWgmma.cu's own, which
// dispatches to them by the tile its maps were encoded for (GegluGemmMaps::tile).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/FusedMlpKernels.h"

namespace fuselab::fusedmlp {

// 128 x 128 tiles, the two consumer warpgroups on alternate tiles
// (FusedMlpGegluPingpong.cu); maps encoded with 128-row boxes for x and wgu.
void launchGegluGemmPingpong(const GegluGemmMaps& maps, ElemType type, void* act, int64_t m, int64_t dim,
                             int64_t hidden, cudaStream_t stream);

}  // namespace fuselab::fusedmlp
