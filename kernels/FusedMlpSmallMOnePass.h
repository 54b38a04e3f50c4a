// The one-pass small-token kernel (FusedMlpSmallMOnePass.cu) and what the two
// small kernels share, for the small-token planner and launcher
// (FusedMlpSmallM.cu); everyone else goes through planSmallMlp / launchSmallMlp
// (FusedMlpKernels.h).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/FusedMlpKernels.h"

namespace fuselab::fusedmlp {

// Blocks per cluster the planner asks for on sm_90 (H100, dim 768, hidden 3072:
// 2 measured fastest; 4 and 8 leave multiprocessors idle while clusters wait to
// be placed).
constexpr int kOnePassCluster = 2;

// 16-row tiles of tokens that both small kernels use for m tokens (1, 2 or 4).
inline int rowTilesFor(int64_t m) { return m <= 16 ? 1 : m <= 32 ? 2 : 4; }
// Workspace pieces start at 256-byte boundaries.
inline size_t roundUp256(size_t v) { return (v + 255) / 256 * 256; }

// Fills the one-pass fields of `plan` (m, dim, hidden and pdl already set):
// hidden 8-groups per block (`groups`, or the planner's when 0), grid, shared
// memory, workspace; clusters of `cluster` blocks (2..8, sm_90 only) where they
// fit, else none. False when not even one 8-group slice fits in shared memory.
bool planOnePass(SmallMlpPlan& plan, ElemType type, int device, int sms, int groups, int cluster);

void launchOnePass(const SmallMlpPlan& plan, ElemType type, const void* x, const void* wgu, const void* wd, void* y,
                   void* workspace, cudaStream_t stream, unsigned long long* timeline);

}  // namespace fuselab::fusedmlp
