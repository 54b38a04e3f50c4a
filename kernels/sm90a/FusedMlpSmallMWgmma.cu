// The one-pass small-token GeGLU MLP on Hopper's tensor cores (compiled for
// sm_90a only; see CMakeLists.txt here): the same plan as the mma.sync one pass
// (FusedMlpSmallMOnePass.cu) with L2 groups, and the same end
// (FusedMlpOnePassDevice.cuh), but each block is one warpgroup whose GEMMs are
// wgmma over operands that bulk tensor copies put into shared memory:
//   GEMM 1, [gate|up] = x wgu_slice^T, m64 n(16 * groups), K in 64-wide chunks
//     through a ring of `stages` slots: every slot's wgu and x tiles complete
//     on its own mbarrier, so the block multiplies the chunks as they land
//     instead of waiting for all of them, and the whole K stays in one
//     accumulator (no partial sums of several warps to add up in shared
//     memory). Up to 64 tokens the ring holds every chunk (all asked for at
//     once); with more, a slot is refilled once its products are done;
//   act = gelu_tanh(gate) * up straight from the accumulator, written to the
//     group's act in global memory; the group's barrier; the group's act copied
//     in over x;
//   GEMM 2, partial y = act wd[block's columns, group's units]^T, 96 columns at
//     a time, added into the accumulators with atomics.
// From 65 tokens the rows come in tiles of 64 tokens, each with its own blocks
// (the same hidden slices; the weights are read from L2 once per row tile).
// Everything past the matrices reads as zero (the copies fill it), so any m up
// to kOnePassWgmmaMaxTokens and any dim, hidden that are multiples of 8 work.
// The ring's first wgu tiles are asked for at the block's start, before the
// wait for the previous kernel in the stream; x and wd after it.
#include <cooperative_groups.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "kernels/FusedMlpOnePassDevice.cuh"
#include "kernels/sm90a/HopperDevice.cuh"

namespace fuselab::fusedmlp {
namespace {

using namespace hopper;

constexpr int kThreads = 128;  // one warpgroup
constexpr int kRows = 64;      // wgmma's M: rows of the x and act tiles, tokens per row tile
constexpr int kXTileBytes = kRows * kTileRowBytes;
constexpr int kGemm2N = 96;    // output columns per GEMM-2 wgmma (a block's at dim 768 in L2 groups of 8)
constexpr int kMaxWdRows = 256;  // rows of a bulk tensor copy's box

__host__ __device__ constexpr int ceilDivInt(int a, int b) { return (a + b - 1) / b; }
// Rows of x (and act) that a copy brings: m rounded up to 8, at most a row
// tile. The rows of a tile past them are never written; wgmma reads them, but
// they only reach output rows from m on, which are dropped.
__host__ __device__ constexpr int copiedRows(int m) { return m < kRows ? (m + 7) / 8 * 8 : kRows; }

// Offsets in dynamic shared memory, from its first 1024-byte boundary: the
// ring's wgu tiles and x tiles (act's tiles take x's place once GEMM 1 is
// done), wd's tiles, then the mbarriers: one per slot, one for wd, one for act.
// A wd tile holds the block's columns (wd_box rows, copied) rounded up to whole
// GEMM-2 wgmmas (rows never written, which only reach columns that are dropped).
struct WgmmaLayout {
  int chunks, act_chunks, wgu_tile, wd_box, wd_rows, wd_tile;
  int wgu, x, wd, bars, total;
};
__host__ __device__ inline WgmmaLayout wgmmaLayoutFor(int dim, int groups, int team, int stages) {
  WgmmaLayout l{};
  l.chunks = ceilDivInt(dim, kTileK);
  l.act_chunks = ceilDivInt(team * groups * 8, kTileK);
  l.wgu_tile = 16 * groups * kTileRowBytes;
  l.wd_box = colGroupsMax(dim, team) * 8;
  l.wd_rows = ceilDivInt(l.wd_box, kGemm2N) * kGemm2N;
  l.wd_tile = l.wd_rows * kTileRowBytes;
  l.wgu = 0;
  l.x = stages * l.wgu_tile;
  l.wd = l.x + (stages > l.act_chunks ? stages : l.act_chunks) * kXTileBytes;
  l.bars = l.wd + l.act_chunks * l.wd_tile;
  l.total = 1024 /* alignment */ + l.bars + (stages + 2) * 8;
  return l;
}

// The two ints sit in the padding before the 64-byte aligned maps, so the
// parameters stay 640 bytes.
template <ElemType E> struct WgmmaParams {
  OnePassArgs<E> args;
  int stages;     // ring slots (every chunk of K up to 64 tokens)
  int row_tiles;  // 64-token row tiles; the grid is row_tiles times the blocks of one
  CUtensorMap x, wgu, wd, act;  // boxes: x and act copiedRows(m) rows, wgu 16 * groups rows, wd wd_box
};

// G: hidden 8-groups per block. Tiled: several row tiles or a ring shorter
// than K (refilled slots); its own kernel, so that the one for up to 64 tokens
// with every chunk in flight keeps neither the refills nor the row-tile
// arithmetic (with them it measured 0.1-0.2 us slower per launch, H200).
template <ElemType E, int G, bool Tiled>
__global__ void __launch_bounds__(kThreads, 1) onePassWgmmaKernel(const __grid_constant__ WgmmaParams<E> P) {
#ifdef FUSELAB_HAS_WGMMA
  const OnePassArgs<E>& p = P.args;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (smemAddr(smem_raw) & 1023)) & 1023);
  const int team = p.group;  // the planner takes this kernel with L2 groups only
  const int S = Tiled ? P.stages : ceilDivInt(p.dim, kTileK);  // ring slots
  const WgmmaLayout L = wgmmaLayoutFor(p.dim, G, team, S);
  unsigned char* wgu_s = smem + L.wgu;
  unsigned char* x_s = smem + L.x;  // then the group's act
  unsigned char* wd_s = smem + L.wd;
  uint64_t* bars = reinterpret_cast<uint64_t*>(smem + L.bars);
  uint64_t* wd_bar = bars + S;
  uint64_t* act_bar = bars + S + 1;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  constexpr int kWidth = G * 8;  // hidden units per block
  const int kc = team * kWidth;  // hidden units per group: K of GEMM 2
  // The row tile's blocks are whole L2 groups, so a group never spans two.
  const int per_row_tile = Tiled ? int(gridDim.x) / P.row_tiles : int(gridDim.x);
  const int row0 = Tiled ? int(blockIdx.x) / per_row_tile * kRows : 0;
  const int slice = Tiled ? int(blockIdx.x) % per_row_tile : int(blockIdx.x);
  const int rows = p.m - row0;  // this tile's rows from row0 (more than kRows in all but the last)
  const int rank = slice % team;
  const int h0 = slice * kWidth, hc0 = h0 - rank * kWidth;
  const int col0 = colGroupsFirst(p.dim, team, rank);
  const int ncols = colGroupsFirst(p.dim, team, rank + 1) - col0;  // this block's n8 tiles of y
  const unsigned chunk_bytes = unsigned(L.wgu_tile + copiedRows(p.m) * kTileRowBytes);
  auto mark = [&](SmallTimelinePoint point) {
    if (p.timeline && tid == 0) p.timeline[blockIdx.x * kSmallTimelinePoints + point] = globalTimer();
  };
  mark(kTimelineStart);
  launchDependents();
  if (tid == 0) {
    for (int i = 0; i < S + 2; ++i) mbarInit(&bars[i], 1);
    mbarInitFence();
  }
  // Every block's mbarriers are ready before any copy signals them.
  if (p.x_multicast) {
    cooperative_groups::this_cluster().sync();
  } else {
    __syncthreads();
  }
  if (tid == 0) {
    // No kernel writes the weights, so they may be asked for before waiting on
    // the previous kernel. Each slot's mbarrier expects its wgu and x tiles.
    for (int c = 0; c < S; ++c) {
      mbarExpectTx(&bars[c], chunk_bytes);
      tmaLoad2d(wgu_s + c * L.wgu_tile, &P.wgu, c * kTileK, 2 * h0, &bars[c]);
    }
  }
  gridDependencyWait();
  mark(kTimelineDepsMet);
  if (tid == 0) {
    // x, which the previous kernel may have written (a cluster's blocks each
    // copy every cluster-th chunk of the first ring into all of them; a
    // refill below is each block's own), then wd.
    if (p.x_multicast) {
      const uint16_t all = uint16_t((1u << p.cluster) - 1);
      for (int c = int(blockIdx.x) % p.cluster; c < S; c += p.cluster) {
        tmaLoad2dMulticast(x_s + c * kXTileBytes, &P.x, c * kTileK, row0, &bars[c], all);
      }
    } else {
      for (int c = 0; c < S; ++c) tmaLoad2d(x_s + c * kXTileBytes, &P.x, c * kTileK, row0, &bars[c]);
    }
    mbarExpectTx(wd_bar, unsigned(L.act_chunks * L.wd_box * kTileRowBytes));
    for (int j = 0; j < L.act_chunks; ++j) tmaLoad2d(wd_s + j * L.wd_tile, &P.wd, hc0 + j * kTileK, col0 * 8, wd_bar);
  }

  // GEMM 1, chunk by chunk as they land. Where the ring is shorter than K, the
  // slot of the chunk before is refilled once its products are done (the wait
  // leaves this chunk's in flight).
  // Slot and phase advance by counting: a division by the runtime ring depth
  // in this loop cost 1 us at 1-64 tokens (H200).
  float d[8 * G];
  int slot = 0, previous = S - 1;
  unsigned phase = 0;
  for (int c = 0; c < L.chunks; ++c) {
    mbarWait(&bars[slot], phase);
    wgmmaFence();
#pragma unroll
    for (int k = 0; k < kTileK / 16; ++k) {
      Wgmma<16 * G>::template run<E>(d, smemDesc(x_s + slot * kXTileBytes + k * 32),
                                     smemDesc(wgu_s + slot * L.wgu_tile + k * 32), c > 0 || k > 0);
    }
    wgmmaCommit();
    const int refill = c - 1 + S;  // the chunk for the previous chunk's slot
    if (Tiled && c > 0 && refill < L.chunks) {
      wgmmaWait<1>();
      __syncthreads();  // every warp's products of that slot are done
      if (tid == 0) {
        mbarExpectTx(&bars[previous], chunk_bytes);
        tmaLoad2d(wgu_s + previous * L.wgu_tile, &P.wgu, refill * kTileK, 2 * h0, &bars[previous]);
        tmaLoad2d(x_s + previous * kXTileBytes, &P.x, refill * kTileK, row0, &bars[previous]);
      }
    }
    previous = slot;
    if (++slot == S) {
      slot = 0;
      phase ^= 1u;
    }
  }
  wgmmaWait<0>();

  // act, into the group's act in global memory.
  storeGeglu<E, G>(p.act_g + int64_t(row0) * p.hidden, rows, p.hidden, warp * 16 + lane / 4, h0 + (lane % 4) * 2,
                   d);
  fenceProxyAsyncGlobal();  // the group's copies read act through the async proxy
  // Every block of the grid is resident (the planner takes L2 groups only where
  // the grid fits at once), so the group's barrier cannot wait forever.
  blockBarrier(p.group_words + blockIdx.x / team, unsigned(team), rank == 0);
  mark(kTimelineBarrier);
  if (tid == 0) {
    fenceProxyAsyncGlobal();
    mbarExpectTx(act_bar, unsigned(L.act_chunks * copiedRows(p.m) * kTileRowBytes));
    for (int j = 0; j < L.act_chunks; ++j) tmaLoad2d(x_s + j * kXTileBytes, &P.act, hc0 + j * kTileK, row0, act_bar);
  }
  mbarWait(wd_bar, 0);
  mbarWait(act_bar, 0);
  mark(kTimelineADone);

  // GEMM 2, 96 of the block's columns at a time over the group's hidden units
  // (K: a multiple of 16, the planner's condition); blocks start at different
  // columns so that their atomics spread over L2.
  float* acc = p.acc + int64_t(blockIdx.x / team % p.copies) * p.m * p.dim + int64_t(row0) * p.dim;
  const int n_tiles = ceilDivInt(ncols * 8, kGemm2N);
  for (int t = 0; t < n_tiles; ++t) {
    const int n = (t + int(blockIdx.x)) % n_tiles;
    float c[kGemm2N / 2];
    wgmmaFence();
    for (int k = 0; k < kc / 16; ++k) {
      const int j = k / (kTileK / 16), kk = k % (kTileK / 16);
      Wgmma<kGemm2N>::template run<E>(c, smemDesc(x_s + j * kXTileBytes + kk * 32),
                                      smemDesc(wd_s + j * L.wd_tile + n * kGemm2N * kTileRowBytes + kk * 32), k > 0);
    }
    wgmmaCommit();
    wgmmaWait<0>();
#pragma unroll
    for (int j = 0; j < kGemm2N / 8; ++j) {
      const int tile = n * (kGemm2N / 8) + j;
      if (tile < ncols) addFragment(acc, rows, p.dim, warp * 16, (col0 + tile) * 8, c + 4 * j);
    }
  }
  mark(kTimelineBGemm);

  arriveAndConvert<E, kThreads>(p, [&] { mark(kTimelinePublished); });
  mark(kTimelineEnd);
#else
  __trap();  // this translation unit is meant for sm_90a only
#endif
}

template <ElemType E, bool Tiled> const void* kernelFor(int groups) {
  switch (groups) {
    case 1: return reinterpret_cast<const void*>(&onePassWgmmaKernel<E, 1, Tiled>);
    case 2: return reinterpret_cast<const void*>(&onePassWgmmaKernel<E, 2, Tiled>);
    case 3: return reinterpret_cast<const void*>(&onePassWgmmaKernel<E, 3, Tiled>);
    case 4: return reinterpret_cast<const void*>(&onePassWgmmaKernel<E, 4, Tiled>);
    case 6: return reinterpret_cast<const void*>(&onePassWgmmaKernel<E, 6, Tiled>);
    default: return reinterpret_cast<const void*>(&onePassWgmmaKernel<E, 8, Tiled>);
  }
}

// What the tensor maps of a launch depend on.
struct MapsKey {
  ElemType type;
  const void *x, *wgu, *wd, *act;
  int64_t m, dim, hidden;
  int groups, team;
  bool operator==(const MapsKey& o) const {
    return type == o.type && x == o.x && wgu == o.wgu && wd == o.wd && act == o.act && m == o.m && dim == o.dim &&
           hidden == o.hidden && groups == o.groups && team == o.team;
  }
};

// The tensor maps of the last launch: they are encoded on the host, which the
// small launches notice, so they are kept while what they depend on stays.
struct MapsCache {
  std::mutex lock;
  bool valid = false;
  MapsKey key{};
  CUtensorMap x, wgu, wd, act;
};

template <ElemType E> void setMaps(WgmmaParams<E>& params, const SmallMlpPlan& plan, MapsCache& cache) {
  const MapsKey key{E,      params.args.x,   params.args.wgu, params.args.wd, params.args.act_g,
                    plan.m, plan.dim,        plan.hidden,     plan.a_groups,  plan.l2_group};
  std::lock_guard<std::mutex> guard(cache.lock);
  if (!cache.valid || !(cache.key == key)) {
    cache.valid = false;
    const WgmmaLayout L = wgmmaLayoutFor(int(plan.dim), plan.a_groups, plan.l2_group, plan.stages);
    cache.x = makeTileMap(E, params.args.x, plan.m, plan.dim, copiedRows(int(plan.m)));
    cache.wgu = makeTileMap(E, params.args.wgu, 2 * plan.hidden, plan.dim, 16 * plan.a_groups);
    cache.wd = makeTileMap(E, params.args.wd, plan.dim, plan.hidden, L.wd_box);
    cache.act = makeTileMap(E, params.args.act_g, plan.m, plan.hidden, copiedRows(int(plan.m)));
    cache.key = key;
    cache.valid = true;
  }
  params.x = cache.x;
  params.wgu = cache.wgu;
  params.wd = cache.wd;
  params.act = cache.act;
}

}  // namespace

bool onePassWgmmaAvailable(int device) {
  return hopper::sm90aLoadable(device, kernelFor<ElemType::BF16, false>(1));
}

bool onePassWgmmaTakesGroups(int groups) { return (groups >= 1 && groups <= 4) || groups == 6 || groups == 8; }

OnePassWgmmaFit onePassWgmmaFit(int64_t m, int64_t dim, int groups, int team, int smem_limit) {
  if (m < 1 || m > kOnePassWgmmaMaxTokens || !onePassWgmmaTakesGroups(groups) || team < 2) return {};
  if ((team * groups * 8) % 16 != 0) return {};  // GEMM 2's K in whole k16 steps
  const int chunks = ceilDivInt(int(dim), kTileK);
  if (wgmmaLayoutFor(int(dim), groups, team, chunks).wd_box > kMaxWdRows) return {};
  // Two slots at least: the one refilled and the one being multiplied.
  for (int stages = chunks; stages >= std::min(chunks, 2); --stages) {
    const int total = wgmmaLayoutFor(int(dim), groups, team, stages).total;
    if (total <= smem_limit) return {stages, total};
  }
  return {};
}

const void* onePassWgmmaKernel(ElemType type, int groups, bool tiled) {
  if (tiled) return type == ElemType::BF16 ? kernelFor<ElemType::BF16, true>(groups) : kernelFor<ElemType::FP16, true>(groups);
  return type == ElemType::BF16 ? kernelFor<ElemType::BF16, false>(groups) : kernelFor<ElemType::FP16, false>(groups);
}

bool onePassWgmmaTiled(int64_t m, int64_t dim, int stages) {
  return m > kRows || stages < ceilDivInt(int(dim), kTileK);
}

int onePassWgmmaThreads() { return kThreads; }

void launchOnePassWgmma(const SmallMlpPlan& plan, ElemType type, const void* x, const void* wgu, const void* wd,
                        void* y, void* workspace, cudaStream_t stream, unsigned long long* timeline) {
  if ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(wgu) | reinterpret_cast<uintptr_t>(wd)) % 16 != 0) {
    throw std::invalid_argument("the wgmma one-pass kernel needs 16-byte aligned x and weights");
  }
  static MapsCache maps;
  TypedArgs<WgmmaParams> args;
  void* params = args.fill(type, [&](auto& filled) {
    fillOnePassArgs(filled.args, plan, x, wgu, wd, y, workspace, timeline);
    setMaps(filled, plan, maps);
    filled.stages = plan.stages;
    filled.row_tiles = plan.row_tiles;
  });
  LaunchOptions options;
  options.pdl = plan.pdl;
  options.cluster = plan.x_multicast ? plan.cluster : 1;
  const void* kernel = onePassWgmmaKernel(type, plan.a_groups, onePassWgmmaTiled(plan.m, plan.dim, plan.stages));
  launchWithOptions(kernel, params, plan.grid, kThreads, plan.smem_bytes, stream, options,
                    "one-pass small-token kernel launch (wgmma)");
}

}  // namespace fuselab::fusedmlp
