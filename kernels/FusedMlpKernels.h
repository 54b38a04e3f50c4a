// Host entry points of fuselab's own GeGLU MLP kernels,
// y = down(gelu_tanh(gate(x)) * up(x)), on raw device pointers (no LibTorch here).
// All matrices are row-major and contiguous:
//   x [m, dim], y [m, dim], wd (down) [dim, hidden],
//   wgu [2*hidden, dim]: gate and up rows interleaved in groups of 8
//   (rows 16q..16q+7 are gate rows 8q..8q+7, rows 16q+8..16q+15 the up rows),
//   so that one GEMM over wgu produces matching gate and up columns side by side.
// Every launch function checks the launch and throws std::runtime_error on failure.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace fuselab::fusedmlp {

enum class ElemType { BF16, FP16 };

// --- Small-token regime: the whole MLP in one launch ------------------------
constexpr int64_t kSmallMaxTokens = 64;
// The Hopper one-pass kernel (one pass with L2 groups on compute capability
// 9.0, sm_90a code) also takes 65 to this many tokens, in row tiles of 64
// tokens with blocks of their own; the other small kernels stop at
// kSmallMaxTokens.
constexpr int64_t kOnePassWgmmaMaxTokens = 128;

// Two kernels do it:
// one pass (one_pass): each block takes `a_groups` hidden 8-groups through both
//   GEMMs and adds its share of y into an fp32 accumulator with atomics; no grid
//   barrier, all of a block's weights are loaded at once (the order of the
//   additions is not fixed, so y's last bits may vary between runs).
// two phases (all blocks co-resident, one grid barrier between the phases):
//   phase A: tiles of `a_groups` hidden 8-groups (gate+up GEMM + GeGLU -> act),
//   phase B: tiles of `b_groups` output 8-column groups x one hidden slice of
//            `slice_k` (down GEMM partial sums; the slices of a column tile
//            then add the partials up in slice order, a share each: deterministic).
struct SmallMlpPlan {
  int64_t m = 0, dim = 0, hidden = 0;
  bool one_pass = false;
  // One pass: blocks per cluster (sm_90, > 1: they share act through distributed
  // shared memory and each computes 1/cluster of y's columns over all of the
  // cluster's hidden units, so y receives cluster times fewer atomic additions).
  int cluster = 1;
  // One pass: blocks that share act through L2 instead (> 1: each writes its
  // act, waits for the group's and loads it; the same split of y's columns as a
  // cluster's, no cluster placement limits; every block of the grid resident at
  // once).
  int l2_group = 1;
  // One pass with L2 groups and clusters (sm_90): the blocks of a cluster load
  // x together, each copying a share of its rows into all of them (bulk copies):
  // fewer bytes out of L2, where every block reads all of x. Elsewhere the
  // clusters change nothing.
  bool x_multicast = false;
  // One pass with L2 groups on compute capability 9.0 (sm_90a code): the
  // Hopper kernel, wgmma over bulk-copied operands, GEMM 1 chunk by chunk as
  // they land, instead of mma.sync over operands that must all be in first.
  bool wgmma = false;
  // One pass: the last blocks to arrive, which convert the accumulator into y,
  // a share each (1..grid / 2).
  int converters = 0;
  // One pass: accumulators (team t, a cluster or an L2 group, adds into copy
  // t % copies), added up by the converters: fewer atomic additions to each
  // address.
  int copies = 1;
  int grid = 0;        // blocks: one per multiprocessor (two phases), one per tile (one pass, whole teams)
  int a_groups = 0;    // hidden 8-groups per phase-A tile (1..3) or per one-pass block (1..4)
  int a_tiles = 0;
  int b_groups = 0;    // output 8-column groups per phase-B tile (1..6)
  int b_col_tiles = 0;
  int b_slices = 0;    // hidden slices: partial sums reduced in this order
  int slice_k = 0;     // hidden per slice
  // Ask L2 for phase B's weights at the start. Measured 0.5-1 us slower per launch
  // on an H100 (the ring already keeps enough bytes in flight), so off by default.
  bool prefetch_weights = false;
  // One pass, Hopper kernel: 64-token row tiles (above 64 tokens), each with a
  // grid's worth of blocks of its own.
  int row_tiles = 1;
  // The rest are the two-phase kernel's (one pass: b_* are 0; stages is the
  // Hopper kernel's ring of K chunks, 0 for the mma.sync one).
  // Cooperative launch: co-residency guaranteed, cooperative-groups grid barrier
  // (the planner's choice where there is no programmatic dependent launch).
  // false: ordinary launch with fuselab's own grid barrier, which relies on every
  // block being resident: one block per multiprocessor that the occupancy query
  // says fits, which holds unless another kernel keeps multiprocessors busy
  // indefinitely (fuselab runs one workload at a time).
  bool cooperative = true;
  // Each block walks its K chunks starting at a different chunk, so the blocks
  // that share an operand (x in phase A, act in phase B) do not all ask L2 for
  // the same lines at the same moment.
  bool rotate_k = true;
  // false: partial sums [slice, m, dim] added in slice order (deterministic), by
  // the last slice of a column tile to arrive or, with split_sums, by all of
  // its slices, a share each. true: fp32 atomic adds into one [m, dim]
  // accumulator, converted by the last block (fewer bytes, order not fixed).
  bool atomic_reduce = false;
  bool split_sums = false;
  // Programmatic dependent launch (sm_90+, ordinary launches only; both kernels): the kernel
  // lets the next launch in the stream start its blocks early and load its
  // weights, which no kernel writes, while this one finishes; everything else
  // waits for this one to end. So the weights must not be written by the kernel
  // launched just before.
  bool pdl = false;
  int stages = 0;      // cp.async ring depth (Hopper one pass: bulk-copy ring slots)
  int blocks_per_sm = 0;  // that fit (2: the next launch's blocks can start beside this one's)
  int warps = 0;       // per block: 8 (one pass; two phases up to 16 tokens) or 16
  size_t smem_bytes = 0;
  // Two phases: act [m, hidden] + partials [b_slices, m, dim] fp32 (or the
  // [m, dim] fp32 accumulator) + one counter per column tile + the grid barrier.
  // One pass: the [m, dim] fp32 accumulator + a counter. Zero-fill it once
  // before the first launch; every launch leaves it ready for the next.
  size_t workspace_bytes = 0;
};

enum class SmallMlpKernel {
  Auto,      // the planner's choice: one pass where it is faster and fits
  OnePass,   // where it fits in shared memory, else two phases
  TwoPhase,  // deterministic with its default fixed-order reduction
};

// Block shapes to try instead of the planner's choice (0 = the planner's).
struct SmallMlpTuning {
  SmallMlpKernel kernel = SmallMlpKernel::Auto;
  int warps = 0;     // two phases: warps per block, 8 or 16 (0: the planner's)
  int stages = 0;    // two phases: cp.async ring depth, 3, 4 or 6 (0: the planner's)
  int a_groups = 0;  // hidden 8-groups per phase-A tile, 1..3 (one pass: per block, 1..4)
  int b_groups = 0;  // output 8-column groups per phase-B tile, 1..6
  int cluster = 0;   // one pass, sm_90: blocks per cluster, 1, 2, 4 or 8 (0: the planner's)
  int converters = 0;  // one pass: blocks that convert the accumulator, 1..64 (0: the planner's)
  int copies = 0;      // one pass: accumulators the teams spread their atomics over, 1..4 (0: the planner's)
  int l2_group = 0;    // one pass: blocks that share act through L2, 1..16 (0: the planner's; > 1: no clusters)
  int wgmma = 0;       // one pass with L2 groups, sm_90a: 1 the Hopper kernel where it fits, -1 the mma.sync one
                       // (0: the planner's)
};

// Tokens up to which the planner's Auto choice is the one-pass kernel, on sm_90
// and newer (clusters and the early start; elsewhere Auto takes the two phases):
// all of the small-token range since the one pass's L2 groups (H100, dim 768,
// hidden 3072, us per launch, one pass / two phases: 1 token 9.5-9.7 /
// 10.9-11.0, 16: 10.9-11.2 / 12.2-13.0, 32: 13.8 / 16.1, 64: 18.0 / 19.9).
constexpr int64_t kOnePassAutoMaxTokens = kSmallMaxTokens;

// Throws std::invalid_argument when m is outside 1..kSmallMaxTokens, a tuning
// value is outside its range (warps, ring depth, cluster, converting blocks), or
// the device cannot hold the grid (the message says why); the argument checks
// come before any CUDA call.
SmallMlpPlan planSmallMlp(int64_t m, int64_t dim, int64_t hidden, ElemType type, int device,
                          SmallMlpTuning tuning = {});
// timeline: optional [grid, kSmallTimelinePoints] device array of %globaltimer
// readings (ns) per block, at these points:
enum SmallTimelinePoint {
  kTimelineStart,       // the block starts
  kTimelineDepsMet,     // past the wait for the previous kernel in the stream
  kTimelineADone,       // phase A done (and phase B's first weights asked for); one pass: act written (everywhere in the cluster)
  kTimelineBarrier,     // past the grid barrier (two phases; one pass: the L2 group's barrier, else not marked)
  kTimelineBGemm,       // phase-B GEMM done
  kTimelinePublished,   // partial sums published (counter incremented)
  kTimelineEnd,
  kSmallTimelinePoints
};
void launchSmallMlp(const SmallMlpPlan& plan, ElemType type, const void* x, const void* wgu,
                    const void* wd, void* y, void* workspace, cudaStream_t stream,
                    unsigned long long* timeline = nullptr);

// --- Large-token regime, kernel 1 of 2: act = gelu_tanh(x wg^T) * (x wu^T) -----
// act [m, hidden] is the only intermediate written; the down GEMM is kernel 2.
// Portable tensor-core kernel (mma.sync, sm_80 and newer).
void launchGegluGemmMma(ElemType type, const void* x, const void* wgu, void* act, int64_t m,
                        int64_t dim, int64_t hidden, cudaStream_t stream);

// Hopper kernel (wgmma + bulk tensor copies, built for sm_90a only). Available
// when the device is compute capability 9.0 and this build carries sm_90a code.
// The bulk-copy descriptors of x, wgu and act are encoded on the host once and
// reused while x, act and the token count stay the same.
// Its forms, by tile: Wide 128 tokens x 256 wgu rows, Mid 128 x 192 and Slim
// 128 x 96, both consumer warpgroups on one tile; Narrow 64 x 96, two blocks
// per multiprocessor. Auto picks by token count (gegluTileFor) the form
// measured fastest (H200, GeGLU GEMM alone, us, one run, Narrow / Slim / Mid /
// Wide): 128 tokens 6.0 / 6.7 / 9.8 / 11.4, 256 7.7 / 6.9 / 9.8 / 11.5, 512
// 13.0 / 11.0 / 10.4 / 11.9, 1024 23.9 / 21.0 / 17.8 / 21.1; 2048 Mid / Wide
// 35.9 / 33.4, 8192 147.2 / 129.9. Slim takes over from 129 tokens, where
// Narrow's blocks start to share multiprocessors two by two. Clusters of two
// row tiles sharing the wgu tile (multicast) were no faster at any size.
enum class GegluTile { Auto, Wide, Mid, Narrow, Slim };
inline constexpr GegluTile kGegluTileForms[] = {GegluTile::Wide, GegluTile::Mid, GegluTile::Narrow,
                                                GegluTile::Slim};  // every form but Auto
inline constexpr int64_t kGegluSlimTileFromTokens = 129;
inline constexpr int64_t kGegluMidTileFromTokens = 512;
inline constexpr int64_t kGegluWideTileFromTokens = 2048;
GegluTile gegluTileFor(int64_t m);
const char* gegluTileName(GegluTile tile);  // "128x256", "128x192", "64x96, two blocks per SM", "128x96"
struct GegluGemmMaps {
  alignas(64) unsigned char x[128];
  alignas(64) unsigned char w[128];
  alignas(64) unsigned char act[128];
  GegluTile tile = GegluTile::Wide;  // the form the boxes were encoded for; the launch runs it
};
bool gegluGemmWgmmaAvailable(int device);
// x [m, dim], wgu [2 hidden, dim] and act [m, hidden], each 16-byte aligned.
void encodeGegluGemmMaps(GegluGemmMaps& maps, ElemType type, const void* x, const void* wgu, void* act, int64_t m,
                         int64_t dim, int64_t hidden, GegluTile tile = GegluTile::Auto);
// act = GeGLU of x and wgu, the matrices `maps` was encoded for.
void launchGegluGemmWgmma(const GegluGemmMaps& maps, ElemType type, int64_t m, int64_t dim, int64_t hidden,
                          cudaStream_t stream);

// --- Liger-style comparison point: one elementwise pass between cuBLAS GEMMs ---
// act = gelu_tanh(gate) * up, all [count] elements, count a multiple of 8.
void launchGegluElementwise(ElemType type, const void* gate, const void* up, void* act,
                            int64_t count, cudaStream_t stream);

}  // namespace fuselab::fusedmlp
