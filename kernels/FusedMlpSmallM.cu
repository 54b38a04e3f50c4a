// The small-token GeGLU MLP (m <= 64): the whole forward in ONE cooperative launch.
//
// The weights (3 * dim * hidden elements) dominate the bytes and each is read from
// HBM once, streamed through a deep cp.async ring. Two phases with one grid-wide
// barrier between them (all blocks are co-resident, which the cooperative launch
// guarantees):
//   A. tile of hidden units: [gate|up] = x wgu^T on tensor cores (mma.sync),
//      act = gelu_tanh(gate) * up, written to a small workspace [m, hidden];
//   B. tile of (output columns, hidden slice): partial y = act_slice wd_slice^T,
//      written as fp32 to workspace [slice, m, dim]. The last block to finish a
//      column tile (a counter per column tile) adds up its slices in slice order
//      and writes y: deterministic, the same inputs give the same bits every run.
// Each block starts its K loop at a different chunk (rotate_k), so blocks sharing
// an operand spread their requests over L2. The fp32 atomic reduction is a faster,
// order-free alternative to the fixed-order one (atomic_reduce).
// Inside a block (8 or 16 warps), warp w takes row tile w % MT and every
// (warps/MT)-th k16 step of each chunk, so the partial sums of only warps/MT warps
// meet in shared memory.
#include <cooperative_groups.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/FusedMlpDevice.cuh"

namespace fuselab::fusedmlp {
namespace {

namespace cg = cooperative_groups;

constexpr int kBK = 128;          // K per pipeline chunk: 8 k16 steps
constexpr int kStride = kBK + 8;  // padded shared-memory row (elements): ldmatrix without bank conflicts
constexpr int kMaxNT = 8;         // n8 tiles in one block tile
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

template <ElemType E> struct SmallArgs {
  using T = typename Elem<E>::T;
  const T* x;
  const T* wgu;
  const T* wd;
  T* y;
  T* act;                // [m, hidden]
  float* part;           // [b_slices, m, dim]
  unsigned* counters;    // [b_col_tiles], zero between launches
  unsigned* barrier;     // [2]: arrivals and generation of the non-cooperative grid barrier
  unsigned long long* timeline;  // optional, [grid, kSmallTimelinePoints]
  int m, dim, hidden;
  int a_groups, a_tiles, b_groups, b_col_tiles, b_slices, slice_k;
  int prefetch;
  int cooperative;
  int rotate_k;
  int atomic_reduce;
};

__device__ __forceinline__ unsigned long long globalTimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned loadAcquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Grid barrier for the ordinary launch: the last block to arrive resets the count
// and bumps the generation the others wait on, so it is ready for the next launch.
__device__ void gridBarrier(unsigned* barrier) {
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned* count = barrier;
    unsigned* generation = barrier + 1;
    const unsigned g = loadAcquire(generation);
    __threadfence();
    if (atomicAdd(count, 1u) == gridDim.x - 1) {
      *count = 0;
      __threadfence();
      atomicAdd(generation, 1u);
    } else {
      while (loadAcquire(generation) == g) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}

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

// acc[j] += A[mt*16 + row, k0:k1] . B[j*8 + row, k0:k1] for this warp's row tile mt
// and k16 steps, streamed through the cp.async ring. Rows past a_rows / b_rows and
// columns past k1 are zero-filled. The KS warps of a row tile hold partial sums to
// be added up afterwards (stashPartials + reducedSum).
template <ElemType E, int MT, int Stages, int Warps>
__device__ void tileGemm(const typename Elem<E>::T* A, int64_t lda, int a_rows,
                         const typename Elem<E>::T* B, int64_t ldb, int b_rows, int nt, int k0,
                         int k1, int rotate, typename Elem<E>::T* ring, float (&acc)[kMaxNT][4]) {
  using T = typename Elem<E>::T;
  using C = Cfg<MT, Stages, Warps>;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int mt = warp % MT, kg = warp / MT;
  constexpr int rows_a = MT * 16;
  const int rows = rows_a + nt * 8;
  const int chunks = (k1 - k0 + kBK - 1) / kBK;
  const int first = chunks > 0 ? rotate % chunks : 0;

  auto load = [&](int c) {
    T* st = ring + (c % C::kStages) * C::kStageElems;
    const int kc = k0 + ((c + first) % chunks) * kBK;
    for (int i = tid; i < rows * (kBK / 8); i += C::kThreads) {
      const int r = i / (kBK / 8), col = kc + (i % (kBK / 8)) * 8;
      const T* src;
      bool ok;
      if (r < rows_a) {
        ok = r < a_rows && col < k1;
        src = A + r * lda + col;
      } else {
        ok = (r - rows_a) < b_rows && col < k1;
        src = B + (r - rows_a) * ldb + col;
      }
      cpAsync16(st + r * kStride + (i % (kBK / 8)) * 8, ok ? src : A, ok);
    }
  };

#pragma unroll
  for (int c = 0; c < C::kStages - 1; ++c) {
    if (c < chunks) load(c);
    cpAsyncCommit();
  }
  for (int c = 0; c < chunks; ++c) {
    cpAsyncWait<C::kStages - 2>();
    __syncthreads();
    if (c + C::kStages - 1 < chunks) load(c + C::kStages - 1);
    cpAsyncCommit();

    const T* as = ring + (c % C::kStages) * C::kStageElems;
    const T* bs = as + rows_a * kStride;
#pragma unroll
    for (int i = 0; i < (kBK / 16 + C::KS - 1) / C::KS; ++i) {
      const int ks = kg + i * C::KS;
      if (ks >= kBK / 16) break;  // 16 warps, one row tile: half of them sit this chunk out
      uint32_t a[4];
      ldmatrixX4(a, as + (mt * 16 + (lane & 15)) * kStride + ks * 16 + (lane >> 4) * 8);
#pragma unroll
      for (int j = 0; j < kMaxNT; ++j) {
        if (j < nt) {
          uint32_t b[2];
          ldmatrixX2(b, bs + (j * 8 + (lane & 7)) * kStride + ks * 16 + ((lane >> 3) & 1) * 8);
          mma16816<E>(acc[j], a, b);
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

template <ElemType E, int MT, int Stages, int Warps>
__global__ void __launch_bounds__(Warps * 32, 1) smallMlpKernel(SmallArgs<E> p) {
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
  if (p.timeline && tid == 0) p.timeline[blockIdx.x * kSmallTimelinePoints] = globalTimer();

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
    const int row0 = a * a_width * 2;  // first wgu row: gate/up interleaved by 8
    zero(acc);
    tileGemm<E, MT, Stages, Warps>(p.x, p.dim, p.m, p.wgu + int64_t(row0) * p.dim, p.dim,
                                   2 * p.hidden - row0, 2 * p.a_groups, 0, p.dim,
                                   p.rotate_k ? blockIdx.x : 0, ring, acc);
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

  if (p.timeline && tid == 0) p.timeline[blockIdx.x * kSmallTimelinePoints + 1] = globalTimer();
  if (p.cooperative) {
    cg::this_grid().sync();
  } else {
    gridBarrier(p.barrier);
  }
  if (p.timeline && tid == 0) p.timeline[blockIdx.x * kSmallTimelinePoints + 2] = globalTimer();

  // Phase B: partial[s] = act[:, slice s] wd[cols, slice s]^T; the last slice of a
  // column tile to finish writes y for that tile.
  const int64_t slice_stride = int64_t(p.m) * p.dim;
  for (int t = blockIdx.x; t < b_tiles; t += gridDim.x) {
    const int ct = t % p.b_col_tiles, s = t / p.b_col_tiles;
    const int n0 = ct * b_width;
    const int k0 = s * p.slice_k, k1 = min(p.hidden, k0 + p.slice_k);
    zero(acc);
    tileGemm<E, MT, Stages, Warps>(p.act, p.hidden, p.m, p.wd + int64_t(n0) * p.hidden, p.hidden,
                                   p.dim - n0, p.b_groups, k0, k1, p.rotate_k ? ct : 0, ring, acc);
    if (p.timeline && tid == 0) p.timeline[blockIdx.x * kSmallTimelinePoints + 3] = globalTimer();
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
    __threadfence();
    __syncthreads();
    if (tid == 0) last_arrival = atomicAdd(&p.counters[ct], 1u) == unsigned(p.b_slices - 1);
    __syncthreads();
    if (p.timeline && tid == 0) p.timeline[blockIdx.x * kSmallTimelinePoints + 4] = globalTimer();
    if (last_arrival) {
      __threadfence();
      const int quads = b_width / 4;
      const int planes = p.atomic_reduce ? 1 : p.b_slices;
      for (int i = tid; i < p.m * quads; i += kThreads) {
        const int row = i / quads, col = n0 + (i % quads) * 4;
        if (col >= p.dim) continue;
        const int64_t off = int64_t(row) * p.dim + col;
        float4 s4 = __ldcg(reinterpret_cast<const float4*>(p.part + off));
        for (int sl = 1; sl < planes; ++sl) {
          const float4 v = __ldcg(reinterpret_cast<const float4*>(p.part + sl * slice_stride + off));
          s4.x += v.x;
          s4.y += v.y;
          s4.z += v.z;
          s4.w += v.w;
        }
        typename Elem<E>::T2 o[2] = {Elem<E>::pack(s4.x, s4.y), Elem<E>::pack(s4.z, s4.w)};
        *reinterpret_cast<uint2*>(p.y + off) = *reinterpret_cast<const uint2*>(o);
        // The accumulator starts the next launch at zero.
        if (p.atomic_reduce) __stcg(reinterpret_cast<float4*>(p.part + off), make_float4(0.f, 0.f, 0.f, 0.f));
      }
      if (tid == 0) p.counters[ct] = 0;  // every slice has arrived: ready for the next launch
    }
    __syncthreads();
  }
  if (p.timeline && tid == 0) p.timeline[blockIdx.x * kSmallTimelinePoints + 5] = globalTimer();
}

int rowTilesFor(int64_t m) { return m <= 16 ? 1 : m <= 32 ? 2 : 4; }

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
    case 46: return choice<E, 4, 6, Warps>();
    default: return choice<E, 4, 4, Warps>();
  }
}

KernelChoice pickKernel(ElemType type, int mt, int stages, int warps) {
  if (type == ElemType::BF16) {
    return warps == 16 ? choiceFor<ElemType::BF16, 16>(mt, stages) : choiceFor<ElemType::BF16, 8>(mt, stages);
  }
  return warps == 16 ? choiceFor<ElemType::FP16, 16>(mt, stages) : choiceFor<ElemType::FP16, 8>(mt, stages);
}

// Ring depth: 6 stages where shared memory allows (Hopper: 227 KB per block),
// else 4 (sm_80 class: 163 KB).
int stagesFor(ElemType type, int mt, int warps, int device) {
  int optin = 0;
  checkCuda(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), "shared-memory limit");
  return size_t(optin) >= pickKernel(type, mt, 6, warps).smem_bytes ? 6 : 4;
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
size_t roundUp256(size_t v) { return (v + 255) / 256 * 256; }

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
  if (m < 1 || m > kSmallMaxTokens) {
    throw std::invalid_argument("the small-token kernel takes 1.." + std::to_string(kSmallMaxTokens) +
                                " tokens, got " + std::to_string(m));
  }
  if (dim % 8 != 0 || hidden % 8 != 0 || dim <= 0 || hidden <= 0) {
    throw std::invalid_argument("dim and hidden must be positive multiples of 8");
  }
  if (tuning.warps != 0 && tuning.warps != 8 && tuning.warps != 16) {
    throw std::invalid_argument("the small-token kernel runs 8 or 16 warps per block, not " +
                                std::to_string(tuning.warps));
  }
  int sms = 0, coop = 0;
  checkCuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "multiprocessor count");
  checkCuda(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device), "cooperative launch query");
  if (!coop) throw std::invalid_argument("the device does not support cooperative launches");

  SmallMlpPlan plan;
  plan.m = m;
  plan.dim = dim;
  plan.hidden = hidden;
  const int mt = rowTilesFor(m);
  // H100, dim 768, hidden 3072: 16 warps 4-9% faster from 17 tokens on, 3-5% slower at 1-16.
  plan.warps = tuning.warps != 0 ? tuning.warps : mt == 1 ? 8 : 16;
  plan.stages = stagesFor(type, mt, plan.warps, device);
  const KernelChoice k = pickKernel(type, mt, plan.stages, plan.warps);
  plan.smem_bytes = k.smem_bytes;
  checkCuda(cudaFuncSetAttribute(k.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(plan.smem_bytes)),
            "shared-memory limit of the small-token kernel");
  int per_sm = 0;
  checkCuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k.kernel, plan.warps * 32, plan.smem_bytes),
            "occupancy of the small-token kernel");
  if (per_sm < 1) throw std::invalid_argument("the small-token kernel does not fit on this device");
  plan.grid = sms;

  const int64_t h8 = hidden / 8, d8 = dim / 8;
  plan.a_groups = int(std::clamp<int64_t>(tuning.a_groups > 0 ? tuning.a_groups : ceilDiv(h8, plan.grid), 1, 4));
  plan.a_tiles = int(ceilDiv(h8, plan.a_groups));
  plan.b_groups = int(std::clamp<int64_t>(tuning.b_groups > 0 ? tuning.b_groups : ceilDiv(d8, 16), 1, kMaxNT));
  plan.b_col_tiles = int(ceilDiv(d8, plan.b_groups));
  const int64_t slices = std::max<int64_t>(1, plan.grid / plan.b_col_tiles);
  plan.slice_k = int(ceilDiv(ceilDiv(hidden, slices), 16) * 16);
  plan.b_slices = int(ceilDiv(hidden, plan.slice_k));
  plan.workspace_bytes = layoutOf(plan).total;
  return plan;
}

void launchSmallMlp(const SmallMlpPlan& plan, ElemType type, const void* x, const void* wgu, const void* wd,
                    void* y, void* workspace, cudaStream_t stream, unsigned long long* timeline) {
  const WorkspaceLayout layout = layoutOf(plan);
  char* ws = static_cast<char*>(workspace);
  auto fill = [&](auto& args) {
    using T = typename std::remove_pointer_t<decltype(args.y)>;
    args.x = static_cast<const T*>(x);
    args.wgu = static_cast<const T*>(wgu);
    args.wd = static_cast<const T*>(wd);
    args.y = static_cast<T*>(y);
    args.act = reinterpret_cast<T*>(ws + layout.act);
    args.part = reinterpret_cast<float*>(ws + layout.part);
    args.counters = reinterpret_cast<unsigned*>(ws + layout.counters);
    args.barrier = reinterpret_cast<unsigned*>(ws + layout.barrier);
    args.timeline = timeline;
    args.cooperative = plan.cooperative ? 1 : 0;
    args.rotate_k = plan.rotate_k ? 1 : 0;
    args.atomic_reduce = plan.atomic_reduce ? 1 : 0;
    args.m = int(plan.m);
    args.dim = int(plan.dim);
    args.hidden = int(plan.hidden);
    args.a_groups = plan.a_groups;
    args.a_tiles = plan.a_tiles;
    args.b_groups = plan.b_groups;
    args.b_col_tiles = plan.b_col_tiles;
    args.b_slices = plan.b_slices;
    args.slice_k = plan.slice_k;
    args.prefetch = plan.prefetch_weights ? 1 : 0;
  };
  SmallArgs<ElemType::BF16> bf_args;
  SmallArgs<ElemType::FP16> fp_args;
  void* arg_ptr;
  if (type == ElemType::BF16) {
    fill(bf_args);
    arg_ptr = &bf_args;
  } else {
    fill(fp_args);
    arg_ptr = &fp_args;
  }
  void* kernel_args[] = {arg_ptr};
  void* kernel = pickKernel(type, rowTilesFor(plan.m), plan.stages, plan.warps).kernel;
  const dim3 block(plan.warps * 32);
  if (plan.cooperative) {
    checkCuda(cudaLaunchCooperativeKernel(kernel, dim3(plan.grid), block, kernel_args, plan.smem_bytes, stream),
              "small-token kernel launch");
  } else {
    checkCuda(cudaLaunchKernel(kernel, dim3(plan.grid), block, kernel_args, plan.smem_bytes, stream),
              "small-token kernel launch");
  }
}

}  // namespace fuselab::fusedmlp
