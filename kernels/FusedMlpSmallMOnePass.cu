// The one-pass small-token GeGLU MLP: the whole forward in one launch, with no
// grid-wide barrier. Each block owns a slice of the hidden units and takes it
// through both GEMMs:
//   [gate|up] = x wgu_slice^T over all of dim (tensor cores, mma.sync),
//   act = gelu_tanh(gate) * up, rounded to the element type (as eager rounds it),
//   partial y = act wd[:, slice]^T, added into fp32 [m, dim] accumulators with
//   atomics (two by default, the teams alternating, so that each address
//   receives half the additions); the last few blocks to finish add the
//   accumulators up into y and zero them for the next launch.
// Blocks may come in teams that share act: clusters (sm_90), through distributed
// shared memory, or L2 groups, which write their act to global memory, wait for
// each other on a barrier word and load the group's act. Each block then
// multiplies the team's act by the wd rows of 1/team of y's columns (the same
// weight bytes), so each output receives team times fewer atomic additions
// (measured: with 128 blocks adding into [16, 768] outputs, L2's atomics take a
// large part of the kernel's time; at 64 tokens most of it).
// A block's wgu rows are asked for at its start, all at once, before it waits
// for the previous kernel in the stream (programmatic dependent launch, sm_90):
// the loads overlap that kernel's end instead of trickling through a ring; x
// and then the block's wd columns follow the wait. The price is shared memory
// (the block's whole weight slice) and the order of the atomic additions, which
// is not fixed: y's last bits can differ between runs. The two-phase kernel
// (FusedMlpSmallM.cu) is the deterministic choice.
#include "kernels/FusedMlpSmallMOnePass.h"

#include <cooperative_groups.h>

#include <algorithm>

#include "kernels/FusedMlpOnePassDevice.cuh"

namespace fuselab::fusedmlp {
namespace {

constexpr int kWarps = 8;
constexpr int kThreads = kWarps * 32;
constexpr int kMaxGroups = 4;  // hidden 8-groups per block: 2 * 4 n8 tiles of [gate|up] in registers
constexpr int kMaxCluster = 8;  // blocks that may share act in a cluster (sm_90)

// Shared-memory row stride (elements) for rows of `cols` elements: an odd number
// of 16-byte units, so the 8 rows one ldmatrix reads start in 8 different bank groups.
__host__ __device__ constexpr int paddedStride(int cols) { return ((cols / 8) | 1) * 8; }
__host__ __device__ constexpr int redStride(int groups) { return groups * 16 + 4; }  // fp32, per row
__host__ __device__ constexpr int align16(int bytes) { return (bytes + 15) / 16 * 16; }

// Byte offsets in dynamic shared memory. The GEMM-1 partial sums of the warps
// (red) reuse the space of the wgu rows and x once GEMM 1 is done. wd holds the
// block's output columns over the team's hidden units, act the team's act: its
// own space in a cluster (the other blocks write into it while this block still
// reads red), over red in an L2 group (loaded once red is done with).
struct Layout {
  int wgu, x, red, wd, act, total;
};
__host__ __device__ inline Layout layoutFor(int m, int dim, int groups, int row_tiles, int team, bool act_over_red) {
  const int ldw = paddedStride(dim), ldk = paddedStride(team * groups * 8);
  Layout l{};
  l.wgu = 0;
  l.x = 2 * groups * 8 * ldw * 2;
  l.red = 0;
  const int gemm1_end = l.x + m * ldw * 2;
  const int red_bytes = kWarps * row_tiles * 16 * redStride(groups) * 4;
  const int act_bytes = m * ldk * 2;
  int reused = gemm1_end > red_bytes ? gemm1_end : red_bytes;
  if (act_over_red && act_bytes > reused) reused = act_bytes;
  l.wd = align16(reused);
  const int wd_end = l.wd + colGroupsMax(dim, team) * 8 * ldk * 2;
  l.act = act_over_red ? 0 : wd_end;
  l.total = align16(act_over_red ? wd_end : wd_end + act_bytes);
  return l;
}

// The address of `local` in the shared memory of block `rank` of this cluster.
template <typename T> __device__ __forceinline__ T* inBlock(T* local, int rank) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return cooperative_groups::this_cluster().map_shared_rank(local, rank);
#else
  return local;  // no clusters before sm_90: the cluster is this block
#endif
}
__device__ __forceinline__ void clusterSync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cooperative_groups::this_cluster().sync();
#endif
}

// x multicast (sm_90): each block of a cluster copies every cluster-th row of x
// into the shared memory of all of them (bulk copies), and each block's
// mbarrier counts the bytes that land in it.
__device__ __forceinline__ void bulkCopyToCluster(void* dst, const void* src, unsigned bytes, uint64_t* bar,
                                                  unsigned short blocks) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;\n" ::"r"(
          smemAddr(dst)),
      "l"(src), "r"(bytes), "r"(smemAddr(bar)), "h"(blocks)
      : "memory");
#endif
}

// MT: 16-row tiles of tokens (1, 2 or 4). GEMM 1: every warp takes every 8th
// k16 step for all row tiles; GEMM 2: every 8th n8 tile of the block's columns.
template <ElemType E, int MT>
__global__ void __launch_bounds__(kThreads) onePassKernel(OnePassArgs<E> p) {
  using T = typename Elem<E>::T;
  using T2 = typename Elem<E>::T2;
  extern __shared__ __align__(16) unsigned char smem[];
  // The blocks that share act: the L2 group if there is one, else the cluster.
  const int team = p.group > 1 ? p.group : p.cluster;
  const Layout L = layoutFor(p.m, p.dim, p.groups, MT, team, p.group > 1);
  T* wgu_s = reinterpret_cast<T*>(smem + L.wgu);
  T* x_s = reinterpret_cast<T*>(smem + L.x);
  float* red = reinterpret_cast<float*>(smem + L.red);
  T* wd_s = reinterpret_cast<T*>(smem + L.wd);
  T* act_s = reinterpret_cast<T*>(smem + L.act);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int width = p.groups * 8;          // hidden units per block
  const int kc = team * width;             // hidden units per team: K of GEMM 2
  const int ldw = paddedStride(p.dim), ldk = paddedStride(kc), rs = redStride(p.groups);
  const int rank = int(blockIdx.x) % team;
  const int h0 = blockIdx.x * width, hc0 = h0 - rank * width;
  // This block's and its team's hidden units (the last may have fewer; blocks
  // that round the grid up to whole teams have none).
  const int units = max(0, min(width, p.hidden - h0));
  const int team_units = max(0, min(kc, p.hidden - hc0));
  const int dim_segs = p.dim / 8;  // 16-byte pieces of a row of dim elements, and n8 tiles of y
  const int col0 = colGroupsFirst(p.dim, team, rank);
  const int ncols = colGroupsFirst(p.dim, team, rank + 1) - col0;  // this block's n8 tiles of y
  const int k_segs = kc / 8;
  auto mark = [&](SmallTimelinePoint point) {
    if (p.timeline && tid == 0) p.timeline[blockIdx.x * kSmallTimelinePoints + point] = globalTimer();
  };
  __shared__ uint64_t x_arrived;  // x multicast: the bytes of x that landed here
  mark(kTimelineStart);
  launchDependents();
  if (p.x_multicast) {
    if (tid == 0) {
      mbarInit(&x_arrived, 1);
      mbarInitFence();
    }
    clusterSync();  // every block's mbarrier is ready before any copy signals it
  }

  // No kernel writes the weights, so they may be asked for before waiting on the
  // previous kernel. Group 1: the 2 * units wgu rows (gate/up interleaved).
  const T* wgu = p.wgu + int64_t(2 * h0) * p.dim;
  for (int i = tid; i < 2 * units * dim_segs; i += kThreads) {
    const int r = i / dim_segs, s = i % dim_segs;
    cpAsync16(wgu_s + r * ldw + s * 8, wgu + int64_t(r) * p.dim + s * 8, true);
  }
  cpAsyncCommit();
  gridDependencyWait();
  mark(kTimelineDepsMet);

  // Group 2: x, which the previous kernel may have written: loaded after the
  // wait, all of it in flight at once (or the cluster's bulk copies).
  if (p.x_multicast) {
    if (tid == 0) mbarExpectTx(&x_arrived, unsigned(p.m * p.dim * 2));
    if (warp == 0) {
      const int crank = int(blockIdx.x) % p.cluster;
      for (int r = crank + lane * p.cluster; r < p.m; r += 32 * p.cluster) {
        bulkCopyToCluster(x_s + r * ldw, p.x + int64_t(r) * p.dim, unsigned(p.dim * 2), &x_arrived,
                          (unsigned short)((1u << p.cluster) - 1));
      }
    }
  } else {
    for (int i = tid; i < p.m * dim_segs; i += kThreads) {
      const int r = i / dim_segs, s = i % dim_segs;
      cpAsync16(x_s + r * ldw + s * 8, p.x + int64_t(r) * p.dim + s * 8, true);
    }
  }
  cpAsyncCommit();
  // Group 3: wd[this block's columns, the team's hidden units], which only
  // GEMM 2 needs: asked for after x, so that GEMM 1 waits for wgu and x alone
  // while wd arrives (H100, us per launch, wd after x / before the wait: 1 token
  // 9.5 / 9.7, 16 tokens 11.0 / 11.1-11.2, the same from 32). Hidden units past
  // the matrix are zero (they meet act's zero columns, and 0 * garbage may be NaN).
  const T* wd = p.wd + int64_t(col0 * 8) * p.hidden + hc0;
  for (int i = tid; i < ncols * 8 * k_segs; i += kThreads) {
    const int r = i / k_segs, s = i % k_segs;
    const bool ok = s * 8 < team_units;
    cpAsync16(wd_s + r * ldk + s * 8, ok ? wd + int64_t(r) * p.hidden + s * 8 : p.wd, ok);
  }
  cpAsyncCommit();
  cpAsyncWait<1>();
  if (p.x_multicast) mbarWait(&x_arrived, 0);
  __syncthreads();

  // GEMM 1: acc1 = x wgu_rows^T. Token rows past m read row m - 1 (their results
  // are never used), so x_s holds only m rows.
  const int nt = 2 * p.groups;
  float acc1[MT][2 * kMaxGroups][4];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int j = 0; j < 2 * kMaxGroups; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc1[mt][j][e] = 0.0f;
  const int ksteps = p.dim / 16;
  for (int ks = warp; ks < ksteps; ks += kWarps) {
    uint32_t a[MT][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
      const int row = min(mt * 16 + (lane & 15), p.m - 1);
      ldmatrixX4(a[mt], x_s + row * ldw + ks * 16 + (lane >> 4) * 8);
    }
#pragma unroll
    for (int j = 0; j < 2 * kMaxGroups; ++j) {
      if (j < nt) {
        uint32_t b[2];
        ldmatrixX2(b, wgu_s + (j * 8 + (lane & 7)) * ldw + ks * 16 + ((lane >> 3) & 1) * 8);
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) mma16816<E>(acc1[mt][j], a[mt], b);
      }
    }
  }
  if (p.dim % 16 != 0 && warp == ksteps % kWarps) {  // dim's last 8 columns: one k8 step
    const int k = ksteps * 16;
    uint32_t a[MT][2];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
      const int row = min(mt * 16 + (lane & 15), p.m - 1);
      ldmatrixX2(a[mt], x_s + row * ldw + k);
    }
#pragma unroll
    for (int j = 0; j < 2 * kMaxGroups; ++j) {
      if (j < nt) {
        uint32_t b;
        ldmatrixX1(b, wgu_s + (j * 8 + (lane & 7)) * ldw + k);
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) mma1688<E>(acc1[mt][j], a[mt], b);
      }
    }
  }
  __syncthreads();  // wgu_s and x_s are free: they become the partial-sum buffer

  float* mine = red + warp * MT * 16 * rs;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int j = 0; j < 2 * kMaxGroups; ++j) {
      if (j < nt) {
        const int row = mt * 16 + lane / 4, col = j * 8 + (lane % 4) * 2;
        *reinterpret_cast<float2*>(mine + row * rs + col) = make_float2(acc1[mt][j][0], acc1[mt][j][1]);
        *reinterpret_cast<float2*>(mine + (row + 8) * rs + col) = make_float2(acc1[mt][j][2], acc1[mt][j][3]);
      }
    }
  }
  __syncthreads();
  // act = gelu_tanh(gate) * up for this block's units (zero past them), two at a
  // time, into columns [rank * width, ...) of act in every block of the cluster,
  // or into the L2 group's act.
  for (int i = tid; i < p.m * width / 2; i += kThreads) {
    const int row = i / (width / 2), hl = (i % (width / 2)) * 2;
    float v[2] = {0.0f, 0.0f};
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      if (hl + e < units) {
        const int col = ((hl + e) / 8) * 16 + (hl + e) % 8;  // gate column; up is 8 further
        float g = 0.0f, u = 0.0f;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) {
          g += red[(w * MT * 16 + row) * rs + col];
          u += red[(w * MT * 16 + row) * rs + col + 8];
        }
        v[e] = geluTanh(g) * u;
      }
    }
    const T2 pair = Elem<E>::pack(v[0], v[1]);
    T* dst = act_s + row * ldk + rank * width + hl;
    if (p.group > 1) {
      if (h0 + hl < p.hidden) *reinterpret_cast<T2*>(p.act_g + int64_t(row) * p.hidden + h0 + hl) = pair;
    } else if (p.cluster == 1) {
      *reinterpret_cast<T2*>(dst) = pair;
    } else {
      for (int b = 0; b < p.cluster; ++b) *reinterpret_cast<T2*>(inBlock(dst, b)) = pair;
    }
  }
  if (p.group > 1) {
    // Wait for the group's act (every block of the grid is resident: the planner
    // takes L2 groups only where the grid fits at once), then load it over red.
    blockBarrier(p.group_words + blockIdx.x / p.group, p.group, rank == 0);
    mark(kTimelineBarrier);
    for (int i = tid; i < p.m * k_segs; i += kThreads) {
      const int r = i / k_segs, s = i % k_segs;
      const bool ok = s * 8 < team_units;
      cpAsync16(act_s + r * ldk + s * 8, ok ? p.act_g + int64_t(r) * p.hidden + hc0 + s * 8 : p.act_g, ok);
    }
    cpAsyncCommit();
  } else if (p.cluster > 1) {
    clusterSync();  // every block's act columns have arrived everywhere
  } else {
    __syncthreads();
  }
  cpAsyncWait<0>();  // wd (and the group's act)
  __syncthreads();
  mark(kTimelineADone);

  // GEMM 2: y[:, this block's columns] += act wd_rows^T, K = the team's hidden
  // units (k16 steps, then a k8 step when K is an odd multiple of 8). Blocks start
  // at different columns, so that at any moment their atomics go to different
  // addresses (and L2 slices).
  const int k16 = kc / 16;
  const bool k8 = kc % 16 != 0;
  const int first = ncols > 0 ? int(blockIdx.x) % ncols : 0;
  float* acc = p.acc + int64_t(blockIdx.x / team % p.copies) * p.m * p.dim;
  for (int jn0 = warp; jn0 < ncols; jn0 += kWarps) {
    const int jn = jn0 + first < ncols ? jn0 + first : jn0 + first - ncols;
    float c[MT][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int e = 0; e < 4; ++e) c[mt][e] = 0.0f;
    const T* brow = wd_s + (jn * 8 + (lane & 7)) * ldk;
    for (int kk = 0; kk < k16; ++kk) {
      uint32_t b[2];
      ldmatrixX2(b, brow + kk * 16 + ((lane >> 3) & 1) * 8);
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        uint32_t a[4];
        ldmatrixX4(a, act_s + min(mt * 16 + (lane & 15), p.m - 1) * ldk + kk * 16 + (lane >> 4) * 8);
        mma16816<E>(c[mt], a, b);
      }
    }
    if (k8) {
      uint32_t b;
      ldmatrixX1(b, brow + k16 * 16);
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        uint32_t a[2];
        ldmatrixX2(a, act_s + min(mt * 16 + (lane & 15), p.m - 1) * ldk + k16 * 16);
        mma1688<E>(c[mt], a, b);
      }
    }
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) addFragment(acc, p.m, p.dim, mt * 16, (col0 + jn) * 8, c[mt]);
  }
  mark(kTimelineBGemm);

  arriveAndConvert<E, kThreads>(p, [&] { mark(kTimelinePublished); });
  mark(kTimelineEnd);
}

template <ElemType E> void* kernelFor(int row_tiles) {
  switch (row_tiles) {
    case 1: return reinterpret_cast<void*>(&onePassKernel<E, 1>);
    case 2: return reinterpret_cast<void*>(&onePassKernel<E, 2>);
    default: return reinterpret_cast<void*>(&onePassKernel<E, 4>);
  }
}
void* kernelFor(ElemType type, int row_tiles) {
  return type == ElemType::BF16 ? kernelFor<ElemType::BF16>(row_tiles) : kernelFor<ElemType::FP16>(row_tiles);
}

// Clusters of `size` blocks that can be resident at once (0: none).
int residentClusters(const void* kernel, int threads, int size, int grid, int smem) {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = unsigned(size);
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(unsigned(threads));
  config.dynamicSmemBytes = size_t(smem);
  config.attrs = &attr;
  config.numAttrs = 1;
  int clusters = 0;
  checkCuda(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config), "cluster occupancy of the one-pass kernel");
  return clusters;
}

// Switches an L2-group plan to the Hopper kernel where the device runs it and
// the shape fits, with the same blocks (its own shared memory, a warpgroup
// each). Without clusters unless `keep_clusters` (a tuning named them): with
// this kernel, loading x together made it slower (H100, dim 768, hidden 3072,
// us per launch, L2 groups of 8 without / with clusters of 2 loading x: 1 token
// 9.0 / 9.4, 16 tokens 8.9 / 9.4, 32 tokens 9.3 / 10.5, 64 tokens 10.5 / 11.0).
// Kept clusters load x together only where all of them fit at once.
void planWgmma(SmallMlpPlan& plan, ElemType type, int device, int sms, int optin, int major, bool keep_clusters) {
  if (plan.l2_group < 2 || major != 9 || !onePassWgmmaAvailable(device)) return;
  if (!onePassWgmmaTakesGroups(plan.a_groups)) return;
  // Both forms of the kernel have the same static shared memory.
  cudaFuncAttributes attributes{};
  checkCuda(cudaFuncGetAttributes(&attributes, onePassWgmmaKernel(type, plan.a_groups, false)),
            "attributes of the wgmma one-pass kernel");
  const int limit = optin - int(attributes.sharedSizeBytes);
  const OnePassWgmmaFit fit = onePassWgmmaFit(plan.m, plan.dim, plan.a_groups, plan.l2_group, limit);
  if (fit.smem == 0) return;
  const int smem = fit.smem;
  const void* kernel = onePassWgmmaKernel(type, plan.a_groups, onePassWgmmaTiled(plan.m, plan.dim, fit.stages));
  checkCuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, limit),
            "shared-memory limit of the wgmma one-pass kernel");
  const int threads = onePassWgmmaThreads();
  int per_sm = 0;
  checkCuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem),
            "occupancy of the wgmma one-pass kernel");
  if (plan.grid > sms * per_sm) return;
  plan.wgmma = true;
  plan.warps = threads / 32;
  plan.stages = fit.stages;
  plan.smem_bytes = size_t(smem);
  plan.blocks_per_sm = per_sm;
  if (!keep_clusters) plan.cluster = 1;
  plan.x_multicast = plan.x_multicast && plan.cluster > 1 &&
                     residentClusters(kernel, threads, plan.cluster, plan.grid, smem) * plan.cluster >= plan.grid;
}

// Two accumulators: half as many atomic additions to each address (H100,
// dim 768, hidden 3072, us per launch, 1 / 2 / 4 accumulators, two runs:
// 16 tokens 11.5 / 11.1 / 11.1, 32 tokens 14.6 / 14.6 / 14.6, 64 tokens
// 21.6 / 20.9 / 21.5).
int accumulatorCopies(const SmallMlpTuning& tuning) {
  return tuning.copies > 0 ? std::min(tuning.copies, kMaxCopies) : 2;
}

// The converting blocks and the workspace, once the kernel and grid are set.
// About two float4 loads per thread of a converter, so that each thread's
// loads are in flight at once (H100, Hopper kernel, 64 tokens: 64 converters
// end 10.1 us after the first block starts, 16 converters 11.0), and at most
// half the grid (so that a converter's wait never needs all blocks resident).
void finishOnePass(SmallMlpPlan& plan, const SmallMlpTuning& tuning) {
  const int threads = plan.warps * 32;
  const int loads = int(plan.m * plan.dim / 4) * plan.copies;
  int converters = tuning.converters;
  if (converters == 0) converters = std::clamp((loads + 2 * threads - 1) / (2 * threads), 1, kMaxConverters);
  plan.converters = std::clamp(converters, 1, std::max(1, plan.grid / 2));
  plan.workspace_bytes = onePassWorkspaceBytes(plan);
}

}  // namespace

bool planOnePass(SmallMlpPlan& plan, ElemType type, int device, int sms, const SmallMlpTuning& tuning, int cluster,
                 int l2_group) {
  const int64_t h8 = plan.hidden / 8;
  const int rows = rowTilesFor(plan.m);
  void* kernel = kernelFor(type, rows);
  // The most dynamic shared memory a block may have: the device's opt-in limit
  // less the kernel's static shared memory.
  int optin = 0;
  checkCuda(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), "shared-memory limit");
  cudaFuncAttributes attributes{};
  checkCuda(cudaFuncGetAttributes(&attributes, kernel), "attributes of the one-pass small-token kernel");
  const int limit = optin - int(attributes.sharedSizeBytes);
  // Widest slices that spread the hidden units over the multiprocessors, narrower
  // where a block's weights would not fit in shared memory.
  const int groups = tuning.a_groups;
  int g = groups > 0 ? std::min(groups, kMaxGroups) : int(std::clamp<int64_t>((h8 + sms - 1) / sms, 1, kMaxGroups));
  cluster = std::clamp(cluster, 1, kMaxCluster);
  for (; g >= 1; --g) {
    if (layoutFor(int(plan.m), int(plan.dim), g, rows, 1, false).total <= limit) break;
  }
  if (g < 1) return false;
  // The device's limit, not this plan's: plans for other token counts launch the
  // same kernel with more or less shared memory.
  checkCuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, limit),
            "shared-memory limit of the one-pass small-token kernel");
  checkCuda(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared),
            "shared-memory carveout of the one-pass small-token kernel");
  const int tiles = int((h8 + g - 1) / g);
  // Clusters share act, so each block holds only its columns of wd, over all the
  // cluster's hidden units: a little more shared memory (padding), if it fits.
  // And only where all of the clusters fit at once: otherwise (measured) the
  // clusters that wait to be placed cost more than the atomics they save. So
  // the largest cluster up to the one asked for whose clusters all fit.
  auto teamGrid = [&](int size) { return (tiles + size - 1) / size * size; };
  auto blocksPerSm = [&](int smem) {
    int per_sm = 0;
    checkCuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, smem),
              "occupancy of the one-pass small-token kernel");
    return per_sm;
  };
  // L2 groups wait for each other, so every block of the grid must be resident
  // at once; the largest group up to the one asked for where that holds and
  // their act fits, else clusters.
  for (l2_group = std::max(l2_group, 1); l2_group > 1; l2_group /= 2) {
    const int group_smem = layoutFor(int(plan.m), int(plan.dim), g, rows, l2_group, true).total;
    if (group_smem <= limit && teamGrid(l2_group) <= sms * blocksPerSm(group_smem)) break;
  }
  // With L2 groups, clusters only load x together.
  auto team_of = [&](int c) { return l2_group > 1 ? l2_group : c; };
  for (; cluster > 1; cluster /= 2) {
    if (l2_group > 1 && l2_group % cluster != 0) continue;  // whole clusters in a group
    const int cluster_smem = layoutFor(int(plan.m), int(plan.dim), g, rows, team_of(cluster), l2_group > 1).total;
    if (cluster_smem <= limit &&
        residentClusters(kernel, kThreads, cluster, teamGrid(team_of(cluster)), cluster_smem) * cluster >=
            teamGrid(team_of(cluster))) {
      break;
    }
  }
  const int team = team_of(cluster);
  const int smem = layoutFor(int(plan.m), int(plan.dim), g, rows, team, l2_group > 1).total;
  const int per_sm = blocksPerSm(smem);
  if (per_sm < 1) return false;
  plan.one_pass = true;
  plan.cooperative = false;
  plan.warps = kWarps;
  plan.stages = 0;
  plan.a_groups = g;
  plan.a_tiles = tiles;
  plan.cluster = cluster;
  plan.l2_group = l2_group;
  // The bulk copies' multicast is built for sm_90 (slower on later GPUs, says
  // the PTX guide), so later GPUs load x block by block.
  int major = 0;
  checkCuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "compute capability");
  plan.x_multicast = l2_group > 1 && cluster > 1 && major == 9;
  plan.grid = teamGrid(team);
  plan.b_groups = plan.b_col_tiles = plan.b_slices = plan.slice_k = 0;
  plan.smem_bytes = size_t(smem);
  plan.blocks_per_sm = per_sm;
  plan.copies = accumulatorCopies(tuning);
  if (tuning.wgmma >= 0) planWgmma(plan, type, device, sms, optin, major, tuning.cluster != 0);
  finishOnePass(plan, tuning);
  return true;
}

bool planOnePassRows(SmallMlpPlan& plan, ElemType type, int device, int sms, const SmallMlpTuning& tuning,
                     int l2_group) {
  int major = 0, optin = 0;
  checkCuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "compute capability");
  checkCuda(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), "shared-memory limit");
  const int64_t h8 = plan.hidden / 8;
  plan.row_tiles = int((plan.m + 63) / 64);
  const int team = std::max(l2_group, 2);
  plan.one_pass = true;
  plan.cooperative = false;
  plan.cluster = 1;
  plan.l2_group = team;
  plan.x_multicast = false;
  plan.b_groups = plan.b_col_tiles = plan.b_slices = plan.slice_k = 0;
  plan.copies = accumulatorCopies(tuning);
  // Widest slices that give every row tile its blocks in one wave, widened
  // (to the widths the kernel is built for) while whole teams overflow it.
  const int first = tuning.a_groups > 0 ? tuning.a_groups : int((h8 * plan.row_tiles + sms - 1) / sms);
  const int last = tuning.a_groups > 0 ? tuning.a_groups : 8;
  for (int g = first; g <= last; ++g) {
    if (!onePassWgmmaTakesGroups(g)) continue;
    plan.a_groups = g;
    plan.a_tiles = int((h8 + g - 1) / g);
    plan.grid = plan.row_tiles * ((plan.a_tiles + team - 1) / team * team);
    planWgmma(plan, type, device, sms, optin, major, false);
    if (plan.wgmma) {
      finishOnePass(plan, tuning);
      return true;
    }
  }
  return false;
}

void launchOnePass(const SmallMlpPlan& plan, ElemType type, const void* x, const void* wgu, const void* wd, void* y,
                   void* workspace, cudaStream_t stream, unsigned long long* timeline) {
  if (plan.wgmma) {
    launchOnePassWgmma(plan, type, x, wgu, wd, y, workspace, stream, timeline);
    return;
  }
  auto fill = [&](auto& args) { fillOnePassArgs(args, plan, x, wgu, wd, y, workspace, timeline); };
  TypedArgs<OnePassArgs> args;
  void* arg_ptr = args.fill(type, fill);
  LaunchOptions options;
  options.pdl = plan.pdl;
  options.cluster = plan.cluster;
  launchWithOptions(kernelFor(type, rowTilesFor(plan.m)), arg_ptr, plan.grid, kThreads, plan.smem_bytes, stream, options,
                    "one-pass small-token kernel launch");
}

}  // namespace fuselab::fusedmlp
