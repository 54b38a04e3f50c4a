// The small-token GeGLU MLP (m <= 64): the whole forward in ONE launch. This
// file holds the two-phase kernel (deterministic) and the planner and launcher of
// both small-token kernels; the one-pass kernel is FusedMlpSmallMOnePass.cu.
//
// The weights (3 * dim * hidden elements) dominate the bytes and each is read
// once, streamed through a cp.async ring. Two phases with one grid-wide barrier
// between them (one block per multiprocessor, all co-resident):
//   A. tile of hidden units: [gate|up] = x wgu^T on tensor cores (mma.sync),
//      act = gelu_tanh(gate) * up, written to a small workspace [m, hidden];
//   B. tile of (output columns, hidden slice): partial y = act_slice wd_slice^T,
//      written as fp32 to workspace [slice, m, dim]. The slices of a column tile
//      wait for each other (a barrier word per column tile), then each adds up
//      its share of the tile's outputs over the slices, in slice order, and
//      writes y: deterministic, the same inputs give the same bits every run.
// Weights are only read, so their loads start early: a tile's first ring-full of
// weight rows is asked for before what it waits on (phase A: the previous kernel
// in the stream, through programmatic dependent launch on sm_90, whose blocks
// start beside the running ones; phase B: the grid barrier).
// Each block starts its K loop at a different chunk (rotate_k), so blocks sharing
// an operand spread their requests over L2. The fp32 atomic reduction is a faster,
// order-free alternative to the fixed-order one (atomic_reduce).
// Inside a block (8 or 16 warps), warp w takes row tile w % MT and every
// (warps/MT)-th k16 step of each chunk, so the partial sums of only warps/MT warps
// meet in shared memory.
#include <cooperative_groups.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/FusedMlpDevice.cuh"
#include "kernels/FusedMlpSmallMOnePass.h"

namespace fuselab::fusedmlp {
namespace {

namespace cg = cooperative_groups;

constexpr int kBK = 128;          // K per pipeline chunk: 8 k16 steps
constexpr int kStride = kBK + 8;  // padded shared-memory row (elements): ldmatrix without bank conflicts
// n8 tiles in one block tile: 6 (48 weight rows) keeps a 6-stage ring of one row
// tile at 104 KB, so two blocks fit on a multiprocessor (the next launch's beside
// this one's, loading its weights).
constexpr int kMaxNT = 6;
constexpr int kMaxBRows = kMaxNT * 8;
constexpr int kRedStride = kMaxBRows + 4;  // fp32 row of the cross-warp reduction buffer

// Warps: 8 or 16 per block. The kernel is bound by the latency of its dependent
// instructions more than by memory (one block per multiprocessor: with 8 warps a
// scheduler has only 2 to switch between); 16 warps pay off once there are
// several row tiles to share (planSmallMlp).
template <int MT, int Stages, int Warps> struct Cfg {
  static constexpr int kThreads = Warps * 32;
  static constexpr int KS = Warps / MT;  // warps per row tile, each on its own k16 steps
  static constexpr int kStages = Stages;
  static constexpr size_t kStageElems = size_t(MT * 16 + kMaxBRows) * kStride;
  static constexpr size_t kRingBytes = kStages * kStageElems * 2;
  static constexpr size_t kRedBytes = size_t(KS) * MT * 16 * kRedStride * sizeof(float);
  static constexpr size_t kSmemBytes = kRingBytes > kRedBytes ? kRingBytes : kRedBytes;
};

template <ElemType E> struct SmallArgs : MlpOperands<E> {
  using T = typename Elem<E>::T;
  T* act;                // [m, hidden]
  float* part;           // [b_slices, m, dim]
  unsigned* counters;    // [b_col_tiles]: barrier words, or arrival counts (atomic reduction); zero at first
  unsigned* barrier;     // the grid barrier's word (ordinary launch)
  unsigned long long* timeline;  // optional, [grid, kSmallTimelinePoints]
  int a_groups, a_tiles, b_groups, b_col_tiles, b_slices, slice_k;
  int prefetch;
  int cooperative;
  int rotate_k;
  int atomic_reduce;
  int split_sums;
};

// Asks L2 for rows [0, rows) x columns [k0, k1) of a row-major matrix of 2-byte
// elements, one prefetch per 128-byte line, spread over the block's threads.
template <int kThreads>
__device__ void prefetchRows(const void* base, int64_t ld, int rows, int k0, int k1) {
  if (rows <= 0 || k1 <= k0) return;
  const char* b = static_cast<const char*>(base);
  const int lines = ((k1 - k0) * 2 + 127) / 128 + 1;  // a misaligned row touches one more line
  for (int i = threadIdx.x; i < rows * lines; i += kThreads) {
    const int r = i / lines;
    const uintptr_t first = reinterpret_cast<uintptr_t>(b + (r * ld + k0) * 2) >> 7;
    const uintptr_t last = reinterpret_cast<uintptr_t>(b + (r * ld + k1) * 2 - 1) >> 7;
    const uintptr_t line = first + i % lines;
    if (line <= last) prefetchL2(reinterpret_cast<const void*>(line << 7));
  }
}

// One GEMM tile: acc[j] += A[rows, k0:k1] . B[j*8 + row, k0:k1] over the block's
// row tiles. A holds activations (x, or act written earlier in this launch), B
// weights, which no kernel writes: their loads may start before the previous
// kernel in the stream has finished (issueWeightPrologue).
template <ElemType E> struct TileJob {
  using T = typename Elem<E>::T;
  const T* a;
  int64_t lda;
  int a_rows;
  const T* b;
  int64_t ldb;
  int b_rows;  // weight rows to copy: the tile's, or fewer at the matrix's end
  int nt;      // n8 tiles of B
  int k0, k1;
  int chunks;  // of kBK columns
  int first;   // chunk the K loop starts at (rotate_k)
};

template <ElemType E>
__device__ TileJob<E> tileJob(const typename Elem<E>::T* a, int64_t lda, int a_rows, const typename Elem<E>::T* b,
                              int64_t ldb, int b_rows, int nt, int k0, int k1, int rotate) {
  const int chunks = (k1 - k0 + kBK - 1) / kBK;
  return {a, lda, a_rows, b, ldb, min(nt * 8, b_rows), nt, k0, k1, chunks, chunks > 0 ? rotate % chunks : 0};
}

// First column of pipeline chunk c (c < chunks).
template <ElemType E> __device__ __forceinline__ int chunkK(const TileJob<E>& j, int c) {
  int idx = c + j.first;
  if (idx >= j.chunks) idx -= j.chunks;
  return j.k0 + idx * kBK;
}

// Copies rows [0, rows) x columns [kc, kc + kBK) of src into stage rows from
// dst_row. Columns past k1 are zero-filled: they meet the other operand in the
// dot products. Rows past the matrix are not copied at all: a row of A (of B)
// only reaches the same row (column) of the result, which nobody reads.
template <int kThreads, typename T>
__device__ __forceinline__ void copyChunkRows(T* stage, int dst_row, const T* src, int64_t ld, int rows, int kc,
                                              int k1) {
  constexpr int kSegments = kBK / 8;  // 16-byte pieces per row: a power of two, so no division below
  for (int i = threadIdx.x; i < rows * kSegments; i += kThreads) {
    const int r = i / kSegments, seg = i % kSegments;
    const int col = kc + seg * 8;
    const bool ok = col < k1;
    cpAsync16(stage + (dst_row + r) * kStride + seg * 8, ok ? src + r * ld + col : src, ok);
  }
}

template <class C, typename T> __device__ __forceinline__ T* stageOf(T* ring, int c) {
  return ring + (c % C::kStages) * C::kStageElems;
}

// The weight rows of the job's first kStages chunks (the whole ring), one
// cp.async group per chunk (empty groups past the last chunk keep tileGemm's
// group count right).
template <ElemType E, int MT, int Stages, int Warps>
__device__ void issueWeightPrologue(const TileJob<E>& j, typename Elem<E>::T* ring) {
  using C = Cfg<MT, Stages, Warps>;
#pragma unroll
  for (int c = 0; c < C::kStages; ++c) {
    if (c < j.chunks) copyChunkRows<C::kThreads>(stageOf<C>(ring, c), MT * 16, j.b, j.ldb, j.b_rows, chunkK(j, c), j.k1);
    cpAsyncCommit();
  }
}

// acc[j] += the job's product for this warp's row tile mt and k16 steps, streamed
// through the cp.async ring; issueWeightPrologue(job) must have run. The KS warps
// of a row tile hold partial sums to be added up afterwards (stashPartials +
// reducedSum).
template <ElemType E, int MT, int Stages, int Warps>
__device__ void tileGemm(const TileJob<E>& j, typename Elem<E>::T* ring, float (&acc)[kMaxNT][4]) {
  using T = typename Elem<E>::T;
  using C = Cfg<MT, Stages, Warps>;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int mt = warp % MT, kg = warp / MT;
  const int a_rows = min(MT * 16, j.a_rows);

  auto copyChunk = [&](int c) {  // activations and weights of chunk c
    T* st = stageOf<C>(ring, c);
    const int kc = chunkK(j, c);
    copyChunkRows<C::kThreads>(st, 0, j.a, j.lda, a_rows, kc, j.k1);
    copyChunkRows<C::kThreads>(st, MT * 16, j.b, j.ldb, j.b_rows, kc, j.k1);
  };
  // Groups: the prologue's kStages (weights), then the activations of those
  // chunks, then chunk c + kStages - 1 at step c >= 1, into the slot chunk c - 1
  // used. So chunk 0 needs every group so far, and chunk c >= kStages sits in
  // group c + 1.
  for (int c = 0; c < C::kStages && c < j.chunks; ++c) {
    copyChunkRows<C::kThreads>(stageOf<C>(ring, c), 0, j.a, j.lda, a_rows, chunkK(j, c), j.k1);
  }
  cpAsyncCommit();
  for (int c = 0; c < j.chunks; ++c) {
    if (c == 0) {
      cpAsyncWait<0>();
    } else {
      cpAsyncWait<C::kStages - 2>();
    }
    __syncthreads();
    if (c > 0) {
      if (c + C::kStages - 1 < j.chunks) copyChunk(c + C::kStages - 1);
      cpAsyncCommit();
    }

    const T* as = stageOf<C>(ring, c);
    const T* bs = as + MT * 16 * kStride;
#pragma unroll
    for (int i = 0; i < (kBK / 16 + C::KS - 1) / C::KS; ++i) {
      const int ks = kg + i * C::KS;
      if (ks >= kBK / 16) break;  // 16 warps, one row tile: half of them sit this chunk out
      uint32_t a[4];
      ldmatrixX4(a, as + (mt * 16 + (lane & 15)) * kStride + ks * 16 + (lane >> 4) * 8);
#pragma unroll
      for (int jt = 0; jt < kMaxNT; ++jt) {
        if (jt < j.nt) {
          uint32_t b[2];
          ldmatrixX2(b, bs + (jt * 8 + (lane & 7)) * kStride + ks * 16 + ((lane >> 3) & 1) * 8);
          mma16816<E>(acc[jt], a, b);
        }
      }
    }
  }
  cpAsyncWait<0>();
  __syncthreads();  // every warp is done with the ring: it becomes the reduction buffer
}

// red[kg][row][col] (fp32) <- this warp's partial sums; waits for all warps.
template <int MT, int kWarps>
__device__ void stashPartials(float* red, const float (&acc)[kMaxNT][4], int nt) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int mt = warp % MT, kg = warp / MT;
  float* base = red + (kg * MT * 16 + mt * 16) * kRedStride;
#pragma unroll
  for (int j = 0; j < kMaxNT; ++j) {
    if (j < nt) {
      const int row = lane / 4, col = j * 8 + (lane % 4) * 2;
      *reinterpret_cast<float2*>(base + row * kRedStride + col) = make_float2(acc[j][0], acc[j][1]);
      *reinterpret_cast<float2*>(base + (row + 8) * kRedStride + col) = make_float2(acc[j][2], acc[j][3]);
    }
  }
  __syncthreads();
}

template <int MT, int kWarps> __device__ float reducedSum(const float* red, int row, int col) {
  float s = 0.0f;
#pragma unroll
  for (int kg = 0; kg < kWarps / MT; ++kg) s += red[(kg * MT * 16 + row) * kRedStride + col];
  return s;
}

__device__ void zero(float (&acc)[kMaxNT][4]) {
#pragma unroll
  for (int j = 0; j < kMaxNT; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) acc[j][e] = 0.0f;
}

// Outputs [begin, end) of the phase-B column tile at column n0, `width` columns
// wide (output i: row i / (width / 4), columns n0 + (i % (width / 4)) * 4 and
// the next 3) <- the sum of the first `planes` partial-sum planes, added in
// plane order but loaded a batch at a time (one L2 round trip per batch rather
// than per plane). The atomic reduction's single plane is zeroed for the next
// launch.
template <ElemType E> __device__ void addSlices(const SmallArgs<E>& p, int n0, int width, int begin, int end, int planes) {
  const int quads = width / 4;
  const int64_t slice_stride = int64_t(p.m) * p.dim;
  for (int i = begin + int(threadIdx.x); i < end; i += int(blockDim.x)) {
    const int row = i / quads, col = n0 + (i % quads) * 4;
    if (col >= p.dim) continue;
    const int64_t off = int64_t(row) * p.dim + col;
    float4 s4 = __ldcg(reinterpret_cast<const float4*>(p.part + off));
    constexpr int kBatch = 8;
    for (int base = 1; base < planes; base += kBatch) {
      float4 v[kBatch];
#pragma unroll
      for (int q = 0; q < kBatch; ++q) {
        if (base + q < planes) v[q] = __ldcg(reinterpret_cast<const float4*>(p.part + (base + q) * slice_stride + off));
      }
#pragma unroll
      for (int q = 0; q < kBatch; ++q) {
        if (base + q < planes) {
          s4.x += v[q].x;
          s4.y += v[q].y;
          s4.z += v[q].z;
          s4.w += v[q].w;
        }
      }
    }
    typename Elem<E>::T2 o[2] = {Elem<E>::pack(s4.x, s4.y), Elem<E>::pack(s4.z, s4.w)};
    *reinterpret_cast<uint2*>(p.y + off) = *reinterpret_cast<const uint2*>(o);
    if (p.atomic_reduce) __stcg(reinterpret_cast<float4*>(p.part + off), make_float4(0.f, 0.f, 0.f, 0.f));
  }
}

// 8 warps: at most 128 registers a thread, so two blocks fit on a multiprocessor
// where shared memory allows (the next launch's blocks start beside this one's).
template <ElemType E, int MT, int Stages, int Warps>
__global__ void __launch_bounds__(Warps * 32, Warps == 8 ? 2 : 1) smallMlpKernel(SmallArgs<E> p) {
  using T = typename Elem<E>::T;
  constexpr int kThreads = Cfg<MT, Stages, Warps>::kThreads;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  __shared__ int last_arrival;
  T* ring = reinterpret_cast<T*>(smem_raw);
  float* red = reinterpret_cast<float*>(smem_raw);
  const int tid = threadIdx.x;
  const int a_width = p.a_groups * 8;  // hidden units per phase-A tile
  const int b_width = p.b_groups * 8;  // output columns per phase-B tile
  const int b_tiles = p.b_col_tiles * p.b_slices;
  auto mark = [&](SmallTimelinePoint point) {
    if (p.timeline && tid == 0) p.timeline[blockIdx.x * kSmallTimelinePoints + point] = globalTimer();
  };
  mark(kTimelineStart);
  // The next launch in the stream may start its blocks now (where they fit) and
  // load its weights; it waits for this one to finish before anything else.
  launchDependents();

  auto phaseAJob = [&](int a) {
    const int row0 = a * a_width * 2;  // first wgu row: gate/up interleaved by 8
    return tileJob<E>(p.x, p.dim, p.m, p.wgu + int64_t(row0) * p.dim, p.dim, 2 * p.hidden - row0, 2 * p.a_groups, 0,
                      p.dim, p.rotate_k ? blockIdx.x : 0);
  };
  auto phaseBJob = [&](int t) {
    const int ct = t % p.b_col_tiles, s = t / p.b_col_tiles;
    const int n0 = ct * b_width, k0 = s * p.slice_k;
    return tileJob<E>(p.act, p.hidden, p.m, p.wd + int64_t(n0) * p.hidden, p.hidden, p.dim - n0, p.b_groups, k0,
                      min(p.hidden, k0 + p.slice_k), p.rotate_k ? ct : 0);
  };

  // The first tile's weights are asked for before waiting on the previous kernel
  // in the stream (which may have written x, y or this workspace): no kernel
  // writes weights.
  if (blockIdx.x < p.a_tiles) issueWeightPrologue<E, MT, Stages, Warps>(phaseAJob(blockIdx.x), ring);
  gridDependencyWait();
  mark(kTimelineDepsMet);

  // Optionally, phase B's down-projection weights go to L2 while phase A streams the rest.
  if (p.prefetch) {
    for (int t = blockIdx.x; t < b_tiles; t += gridDim.x) {
      const int n0 = (t % p.b_col_tiles) * b_width, s = t / p.b_col_tiles;
      prefetchRows<kThreads>(p.wd + int64_t(n0) * p.hidden, p.hidden, min(b_width, p.dim - n0),
                             s * p.slice_k, min(p.hidden, (s + 1) * p.slice_k));
    }
  }

  float acc[kMaxNT][4];

  // Phase A: act = gelu_tanh(x wg^T) * (x wu^T) for this block's hidden tiles.
  for (int a = blockIdx.x; a < p.a_tiles; a += gridDim.x) {
    const TileJob<E> job = phaseAJob(a);
    if (a != int(blockIdx.x)) issueWeightPrologue<E, MT, Stages, Warps>(job, ring);
    zero(acc);
    tileGemm<E, MT, Stages, Warps>(job, ring, acc);
    stashPartials<MT, Warps>(red, acc, 2 * p.a_groups);
    for (int i = tid; i < p.m * a_width; i += kThreads) {
      const int row = i / a_width, hl = i % a_width;
      const int h = a * a_width + hl;
      if (h < p.hidden) {
        const int q = hl / 8, r = hl % 8;
        const float g = reducedSum<MT, Warps>(red, row, q * 16 + r);
        const float u = reducedSum<MT, Warps>(red, row, q * 16 + 8 + r);
        p.act[int64_t(row) * p.hidden + h] = Elem<E>::pack(geluTanh(g) * u, 0.0f).x;
      }
    }
    __syncthreads();
  }

  // Phase B's first weights load while the grid waits at the barrier.
  if (blockIdx.x < b_tiles) issueWeightPrologue<E, MT, Stages, Warps>(phaseBJob(blockIdx.x), ring);
  mark(kTimelineADone);
  if (p.cooperative) {
    cg::this_grid().sync();
  } else {
    blockBarrier(p.barrier, gridDim.x, blockIdx.x == 0);  // the grid barrier of an ordinary launch
  }
  mark(kTimelineBarrier);

  // Phase B: partial[s] = act[:, slice s] wd[cols, slice s]^T; the last slice of a
  // column tile to finish writes y for that tile.
  const int64_t slice_stride = int64_t(p.m) * p.dim;
  for (int t = blockIdx.x; t < b_tiles; t += gridDim.x) {
    const int ct = t % p.b_col_tiles, s = t / p.b_col_tiles;
    const int n0 = ct * b_width;
    const TileJob<E> job = phaseBJob(t);
    if (t != int(blockIdx.x)) issueWeightPrologue<E, MT, Stages, Warps>(job, ring);
    zero(acc);
    tileGemm<E, MT, Stages, Warps>(job, ring, acc);
    mark(kTimelineBGemm);
    stashPartials<MT, Warps>(red, acc, p.b_groups);
    // Partial sums of this slice: its own plane (deterministic) or atomics into plane 0.
    float* out = p.part + (p.atomic_reduce ? 0 : s * slice_stride);
    for (int i = tid; i < p.m * b_width; i += kThreads) {
      const int row = i / b_width, c = i % b_width;
      if (n0 + c >= p.dim) continue;
      const float v = reducedSum<MT, Warps>(red, row, c);
      if (p.atomic_reduce) {
        atomicAdd(out + int64_t(row) * p.dim + n0 + c, v);
      } else {
        __stcg(out + int64_t(row) * p.dim + n0 + c, v);
      }
    }
    if (!p.split_sums) {
      // Release the partial sums with the arrival; the last block to arrive
      // acquires everyone's (thread 0 for the block, through __syncthreads),
      // adds them up and writes y.
      __syncthreads();
      if (tid == 0) last_arrival = atomicAddAcqRel(&p.counters[ct], 1u) == unsigned(p.b_slices - 1);
      __syncthreads();
      mark(kTimelinePublished);
      if (last_arrival) {
        addSlices(p, n0, b_width, 0, p.m * (b_width / 4), p.atomic_reduce ? 1 : p.b_slices);
        if (tid == 0) p.counters[ct] = 0;  // every slice has arrived: ready for the next launch
      }
    } else {
      // Fixed order, split: every slice of the column tile waits for all of
      // them (they are all resident: when there are several slices, each
      // block has one phase-B tile), then adds up its share of the tile's
      // outputs over the slices, in slice order.
      blockBarrier(&p.counters[ct], p.b_slices, s == 0);
      mark(kTimelinePublished);
      const int outputs = p.m * (b_width / 4);
      addSlices(p, n0, b_width, outputs * s / p.b_slices, outputs * (s + 1) / p.b_slices, p.b_slices);
    }
    __syncthreads();
  }
  mark(kTimelineEnd);
}

struct KernelChoice {
  void* kernel;
  size_t smem_bytes;
};

template <ElemType E, int MT, int Stages, int Warps> KernelChoice choice() {
  return {reinterpret_cast<void*>(&smallMlpKernel<E, MT, Stages, Warps>), Cfg<MT, Stages, Warps>::kSmemBytes};
}

template <ElemType E, int Warps> KernelChoice choiceFor(int mt, int stages) {
  switch (mt * 10 + stages) {
    case 16: return choice<E, 1, 6, Warps>();
    case 14: return choice<E, 1, 4, Warps>();
    case 26: return choice<E, 2, 6, Warps>();
    case 24: return choice<E, 2, 4, Warps>();
    case 13: return choice<E, 1, 3, Warps>();
    case 46: return choice<E, 4, 6, Warps>();
    case 44: return choice<E, 4, 4, Warps>();
    case 23: return choice<E, 2, 3, Warps>();
    default: return choice<E, 4, 3, Warps>();
  }
}

KernelChoice pickKernel(ElemType type, int mt, int stages, int warps) {
  if (type == ElemType::BF16) {
    return warps == 16 ? choiceFor<ElemType::BF16, 16>(mt, stages) : choiceFor<ElemType::BF16, 8>(mt, stages);
  }
  return warps == 16 ? choiceFor<ElemType::FP16, 16>(mt, stages) : choiceFor<ElemType::FP16, 8>(mt, stages);
}

// Blocks of the kernel that fit on one multiprocessor (0: not even one), after
// raising its shared-memory limit (which fails when the device has too little).
int blocksPerSm(const KernelChoice& k, int warps, int device) {
  int optin = 0;
  checkCuda(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), "shared-memory limit");
  if (k.smem_bytes > size_t(optin)) return 0;
  checkCuda(cudaFuncSetAttribute(k.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(k.smem_bytes)),
            "shared-memory limit of the small-token kernel");
  // All of L1 as shared memory, so two blocks fit where the query says they can.
  checkCuda(cudaFuncSetAttribute(k.kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared),
            "shared-memory carveout of the small-token kernel");
  int per_sm = 0;
  checkCuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k.kernel, warps * 32, k.smem_bytes),
            "occupancy of the small-token kernel");
  return per_sm;
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct WorkspaceLayout {
  size_t act = 0, part = 0, counters = 0, barrier = 0, total = 0;
};
WorkspaceLayout layoutOf(const SmallMlpPlan& plan) {
  WorkspaceLayout l;
  l.part = roundUp256(size_t(plan.m * plan.hidden * 2));
  l.counters = l.part + roundUp256(size_t(plan.b_slices) * plan.m * plan.dim * sizeof(float));
  l.barrier = l.counters + roundUp256(size_t(plan.b_col_tiles) * sizeof(unsigned));
  l.total = l.barrier + 256;
  return l;
}

}  // namespace

SmallMlpPlan planSmallMlp(int64_t m, int64_t dim, int64_t hidden, ElemType type, int device,
                          SmallMlpTuning tuning) {
  if (m < 1 || m > kOnePassWgmmaMaxTokens) {
    throw std::invalid_argument("the small-token kernel takes 1.." + std::to_string(kSmallMaxTokens) +
                                " tokens (up to " + std::to_string(kOnePassWgmmaMaxTokens) +
                                " with the Hopper one pass), got " + std::to_string(m));
  }
  if (m > kSmallMaxTokens && (tuning.kernel == SmallMlpKernel::TwoPhase || tuning.wgmma < 0)) {
    throw std::invalid_argument("from " + std::to_string(kSmallMaxTokens + 1) +
                                " tokens only the Hopper one-pass kernel runs, got " + std::to_string(m) +
                                " tokens with another kernel asked for");
  }
  if (dim % 8 != 0 || hidden % 8 != 0 || dim <= 0 || hidden <= 0) {
    throw std::invalid_argument("dim and hidden must be positive multiples of 8");
  }
  if (tuning.warps != 0 && tuning.warps != 8 && tuning.warps != 16) {
    throw std::invalid_argument("the small-token kernel runs 8 or 16 warps per block, not " +
                                std::to_string(tuning.warps));
  }
  if (tuning.cluster < 0 || tuning.cluster > 8 || (tuning.cluster & (tuning.cluster - 1)) != 0) {
    throw std::invalid_argument("the one-pass kernel's clusters have 1, 2, 4 or 8 blocks, not " +
                                std::to_string(tuning.cluster));
  }
  if (tuning.converters < 0 || tuning.converters > kMaxConverters) {
    throw std::invalid_argument("the one-pass kernel's accumulator is converted by 1.." +
                                std::to_string(kMaxConverters) + " blocks, not " + std::to_string(tuning.converters));
  }
  if (tuning.copies < 0 || tuning.copies > kMaxCopies) {
    throw std::invalid_argument("the one-pass kernel spreads its atomics over 1.." + std::to_string(kMaxCopies) +
                                " accumulators, not " + std::to_string(tuning.copies));
  }
  if (tuning.l2_group < 0 || tuning.l2_group > kMaxL2Group) {
    throw std::invalid_argument("the one-pass kernel's L2 groups have 1.." + std::to_string(kMaxL2Group) +
                                " blocks, not " + std::to_string(tuning.l2_group));
  }
  if (tuning.wgmma < -1 || tuning.wgmma > 1) {
    throw std::invalid_argument("the one-pass kernel's wgmma choice is -1 (mma.sync), 0 (the planner's) or 1 (wgmma), not " +
                                std::to_string(tuning.wgmma));
  }
  if (tuning.stages != 0 && tuning.stages != 3 && tuning.stages != 4 && tuning.stages != 6) {
    throw std::invalid_argument("the small-token kernel's ring has 3, 4 or 6 stages, not " +
                                std::to_string(tuning.stages));
  }
  int sms = 0, coop = 0, major = 0;
  checkCuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "multiprocessor count");
  checkCuda(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device), "cooperative launch query");
  checkCuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "compute capability");

  SmallMlpPlan plan;
  plan.m = m;
  plan.dim = dim;
  plan.hidden = hidden;
  // Where programmatic dependent launch exists (sm_90+), the next forward starts
  // its blocks and weight loads while this one finishes.
  plan.pdl = major >= 9;
  if (m > kSmallMaxTokens) {
    if (major != 9 || !onePassWgmmaAvailable(device) ||
        !planOnePassRows(plan, type, device, sms, tuning,
                         tuning.l2_group != 0 ? tuning.l2_group : onePassShapeFor(m, true).l2_group)) {
      throw std::invalid_argument("the Hopper one-pass kernel, the only one from " +
                                  std::to_string(kSmallMaxTokens + 1) + " tokens, does not run " +
                                  std::to_string(m) + " tokens of this shape on this device");
    }
    return plan;
  }
  // Auto takes the one pass only where clusters exist: without them its
  // atomics cost more than the two phases' barrier (H100 with clusters turned
  // off, us per launch, one pass / two phases: 16 tokens 13.6-14.2 / 12.2,
  // 32 tokens 19.1-20.0 / 15.5-15.8).
  const bool one_pass = tuning.kernel == SmallMlpKernel::OnePass ||
                        (tuning.kernel == SmallMlpKernel::Auto && major >= 9 && m <= kOnePassAutoMaxTokens);
  // Clusters exist from sm_90 on; the block shape measured for them applies
  // where the tuning leaves groups, clusters and L2 groups to the planner, and
  // the Hopper kernel's shape where it runs (compute capability 9.0, sm_90a
  // code) and the tuning does not turn it off.
  const bool hopper = tuning.wgmma >= 0 && major == 9 && onePassWgmmaAvailable(device);
  const OnePassShape shape = major >= 9 ? onePassShapeFor(m, hopper) : OnePassShape{0, 1, 1};
  SmallMlpTuning one_pass_tuning = tuning;
  if (tuning.a_groups == 0 && tuning.cluster == 0 && tuning.l2_group == 0) one_pass_tuning.a_groups = shape.groups;
  // A tuning that names clusters but not L2 groups leaves those out; one that
  // names L2 groups (> 1) but not clusters leaves clusters out, and one that
  // turns L2 groups off (1) keeps the planner's clusters, which then share act.
  const int l2_group = tuning.l2_group != 0 ? tuning.l2_group : tuning.cluster != 0 ? 1 : shape.l2_group;
  const int cluster = major < 9             ? 1
                      : tuning.cluster != 0 ? tuning.cluster
                      : tuning.l2_group > 1 ? 1
                                            : shape.cluster;
  if (one_pass && planOnePass(plan, type, device, sms, one_pass_tuning, cluster, l2_group)) {
    return plan;
  }

  // Two phases. All blocks must be resident at once (the grid barrier).
  if (!coop) throw std::invalid_argument("the device does not support cooperative launches");
  const int mt = rowTilesFor(m);
  // H100, dim 768, hidden 3072: 16 warps 4-9% faster from 17 tokens on, 3-5% slower at 1-16.
  plan.warps = tuning.warps != 0 ? tuning.warps : mt == 1 ? 8 : 16;
  // The early start does not start a cooperative launch early (measured on an
  // H100), so those launches are ordinary ones with the kernel's own grid barrier.
  plan.cooperative = !plan.pdl;
  // Ring depth: the first of `depths` that fits. With the early start, shallower
  // rings measured faster (H100, dim 768, hidden 3072, us per launch, 3/4/6
  // stages: 8 warps 1 token 11.2/11.3/11.7, 16 tokens 12.2/12.4/12.6; 16 warps
  // 64 tokens 20.6/21.5/21.7): the next launch's early loads compete less with
  // this one's, and the shallowest ring is also the likeliest to fit two blocks
  // to a multiprocessor, the next launch's beside this one's. Without it, the
  // deepest ring is best.
  const std::array<int, 3> depths = plan.pdl ? std::array<int, 3>{3, 4, 6} : std::array<int, 3>{6, 4, 3};
  int per_sm = 0;
  for (int stages : depths) {
    if (tuning.stages != 0 && stages != tuning.stages) continue;
    per_sm = blocksPerSm(pickKernel(type, mt, stages, plan.warps), plan.warps, device);
    if (per_sm >= 1) {
      plan.stages = stages;
      break;
    }
  }
  if (plan.stages == 0) throw std::invalid_argument("the small-token kernel does not fit on this device");
  plan.smem_bytes = pickKernel(type, mt, plan.stages, plan.warps).smem_bytes;
  plan.blocks_per_sm = per_sm;
  plan.grid = sms;

  const int64_t h8 = hidden / 8, d8 = dim / 8;
  plan.a_groups = int(std::clamp<int64_t>(tuning.a_groups > 0 ? tuning.a_groups : ceilDiv(h8, plan.grid), 1, kMaxNT / 2));
  plan.a_tiles = int(ceilDiv(h8, plan.a_groups));
  plan.b_groups = int(std::clamp<int64_t>(tuning.b_groups > 0 ? tuning.b_groups : ceilDiv(d8, 16), 1, kMaxNT));
  plan.b_col_tiles = int(ceilDiv(d8, plan.b_groups));
  const int64_t slices = std::max<int64_t>(1, plan.grid / plan.b_col_tiles);
  plan.slice_k = int(ceilDiv(ceilDiv(hidden, slices), 16) * 16);
  plan.b_slices = int(ceilDiv(hidden, plan.slice_k));
  // With more tokens, the slices of a column tile add it up together (H100,
  // dim 768, hidden 3072, us per launch, split / the last slice alone: 64
  // tokens 19.7 / 20.8, 32 tokens 15.7 / 15.7, 16 tokens 13.1 / 12.2: the
  // wait for the slowest slice costs more than adding up a small tile alone).
  plan.split_sums = m > 32;
  // The slices wait for each other: only safe where each block has at most one
  // phase-B tile (all of them resident).
  if (plan.b_slices > 1 && plan.b_col_tiles * plan.b_slices > plan.grid) {
    throw std::logic_error("small-token planner: more phase-B tiles than blocks with several slices");
  }
  plan.workspace_bytes = layoutOf(plan).total;
  return plan;
}

void launchSmallMlp(const SmallMlpPlan& plan, ElemType type, const void* x, const void* wgu, const void* wd,
                    void* y, void* workspace, cudaStream_t stream, unsigned long long* timeline) {
  if (plan.one_pass) {
    launchOnePass(plan, type, x, wgu, wd, y, workspace, stream, timeline);
    return;
  }
  const WorkspaceLayout layout = layoutOf(plan);
  char* ws = static_cast<char*>(workspace);
  auto fill = [&](auto& args) {
    using T = typename std::remove_pointer_t<decltype(args.y)>;
    args.setOperands(plan, x, wgu, wd, y);
    args.act = reinterpret_cast<T*>(ws + layout.act);
    args.part = reinterpret_cast<float*>(ws + layout.part);
    args.counters = reinterpret_cast<unsigned*>(ws + layout.counters);
    args.barrier = reinterpret_cast<unsigned*>(ws + layout.barrier);
    args.timeline = timeline;
    args.cooperative = plan.cooperative ? 1 : 0;
    args.rotate_k = plan.rotate_k ? 1 : 0;
    args.atomic_reduce = plan.atomic_reduce ? 1 : 0;
    args.split_sums = plan.split_sums && !plan.atomic_reduce ? 1 : 0;
    args.a_groups = plan.a_groups;
    args.a_tiles = plan.a_tiles;
    args.b_groups = plan.b_groups;
    args.b_col_tiles = plan.b_col_tiles;
    args.b_slices = plan.b_slices;
    args.slice_k = plan.slice_k;
    args.prefetch = plan.prefetch_weights ? 1 : 0;
  };
  TypedArgs<SmallArgs> args;
  void* arg_ptr = args.fill(type, fill);
  LaunchOptions options;
  options.cooperative = plan.cooperative;
  options.pdl = plan.pdl;
  launchWithOptions(pickKernel(type, rowTilesFor(plan.m), plan.stages, plan.warps).kernel, arg_ptr, plan.grid,
                    plan.warps * 32, plan.smem_bytes, stream, options, "small-token kernel launch");
}

}  // namespace fuselab::fusedmlp
