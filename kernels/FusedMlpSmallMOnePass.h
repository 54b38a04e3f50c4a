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

// The block shape the planner asks for on sm_90, by tokens: hidden 8-groups per
// block (0: the planner's width rule), blocks per cluster and per L2 group. H100,
// dim 768, hidden 3072, us per launch: up to 16 tokens, 3-group blocks in
// clusters of 2 (16 tokens: 10.9-11.3; 4 groups in clusters of 4: 11.3-11.5;
// clusters of 4 or 8 of the 128 3-group blocks do not all fit at once; L2 groups
// of 4 / 8 / 16: 11.0 / 10.9 / 10.9); from 17 tokens, 3-group blocks in L2
// groups of 8, which have no placement limits, in clusters of 2 that load x
// together (32 tokens: 13.1; without the clusters 13.8; groups of 4 / 16: 14.1
// / 13.9; 4-group blocks in clusters of 4: 14.5; 64 tokens: 17.1; without the
// clusters 18.2; groups of 4 / 16: 18.5 / 18.5; clusters of 2 alone: 21.3).
// Those are the mma.sync kernel's. Where the Hopper kernel runs (`wgmma`), L2
// groups of 8 without clusters at every token count (Hopper kernel / mma.sync
// kernel's shape above: 1 token 9.0 / 9.6, 16 tokens 8.9 / 11.0, 32 tokens
// 9.3 / 13.1, 64 tokens 10.5 / 16.7; the Hopper kernel in L2 groups of 4
// loading x by clusters of 2, 64 tokens: 13.2, groups of 8 doing so: 11.0).
struct OnePassShape {
  int groups, cluster, l2_group;
};
inline OnePassShape onePassShapeFor(int64_t m, bool wgmma) {
  if (wgmma) return OnePassShape{0, 1, 8};
  return m <= 16 ? OnePassShape{0, 2, 1} : OnePassShape{0, 2, 8};
}
// The most blocks that share the conversion of the accumulator into y.
constexpr int kMaxConverters = 64;
// The most accumulators the teams may spread their atomics over.
constexpr int kMaxCopies = 4;
// The most blocks of an L2 group.
constexpr int kMaxL2Group = 16;

// 16-row tiles of tokens that both small kernels use for m tokens (1, 2 or 4).
inline int rowTilesFor(int64_t m) { return m <= 16 ? 1 : m <= 32 ? 2 : 4; }
// Workspace pieces start at 256-byte boundaries.
inline size_t roundUp256(size_t v) { return (v + 255) / 256 * 256; }

// Fills the one-pass fields of `plan` (m, dim, hidden and pdl already set):
// hidden 8-groups per block and converting blocks (the tuning's, or the
// planner's where it says 0), grid, shared memory, workspace; L2 groups of
// `l2_group` blocks (2..16), halved until their act fits and the whole grid is
// resident at once; clusters of `cluster` blocks (2..8, sm_90 only; whole
// clusters in an L2 group), or of the largest smaller size whose clusters all
// fit at once. False when not even one 8-group slice fits in shared memory.
bool planOnePass(SmallMlpPlan& plan, ElemType type, int device, int sms, const SmallMlpTuning& tuning, int cluster,
                 int l2_group);

// 65..kOnePassWgmmaMaxTokens tokens, the Hopper one pass only: tiles of 64
// tokens, each with its own blocks (one wave for all), in L2 groups of
// `l2_group` blocks (at least 2). False where the device or the shape does not
// take it.
bool planOnePassRows(SmallMlpPlan& plan, ElemType type, int device, int sms, const SmallMlpTuning& tuning,
                     int l2_group);

void launchOnePass(const SmallMlpPlan& plan, ElemType type, const void* x, const void* wgu, const void* wd, void* y,
                   void* workspace, cudaStream_t stream, unsigned long long* timeline);

// The one pass on Hopper tensor cores (sm90a/FusedMlpSmallMWgmma.cu: wgmma,
// bulk tensor copies, built for sm_90a only), for plans with L2 groups.
// Available where the device is compute capability 9.0 and the build carries
// sm_90a code.
bool onePassWgmmaAvailable(int device);
// Hidden 8-groups per block that it is built for: 1..4, 6 and 8.
bool onePassWgmmaTakesGroups(int groups);
// Its ring of K chunks and dynamic shared memory per block for m tokens,
// `groups` hidden 8-groups per block and L2 groups of `team` blocks: the
// deepest ring (every chunk at most) that fits in `smem_limit` bytes. Zeros
// where it does not take that shape (groups it is not built for, m over
// kOnePassWgmmaMaxTokens, the group's hidden units not a multiple of 16, over
// 256 of y's columns per block) or nothing fits.
struct OnePassWgmmaFit {
  int stages = 0, smem = 0;
};
OnePassWgmmaFit onePassWgmmaFit(int64_t m, int64_t dim, int groups, int team, int smem_limit);
// The kernel for `groups`, tiled (over 64 tokens or a ring shorter than K) or not.
const void* onePassWgmmaKernel(ElemType type, int groups, bool tiled);
bool onePassWgmmaTiled(int64_t m, int64_t dim, int stages);
int onePassWgmmaThreads();
void launchOnePassWgmma(const SmallMlpPlan& plan, ElemType type, const void* x, const void* wgu, const void* wd,
                        void* y, void* workspace, cudaStream_t stream, unsigned long long* timeline);

}  // namespace fuselab::fusedmlp
