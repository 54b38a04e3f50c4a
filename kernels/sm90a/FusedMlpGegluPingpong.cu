// Large-token GeGLU GEMM, Hopper path, "pingpong" form (sm_90a only): the same
// product and epilogue as FusedMlpGegluWgmma.cu, with tiles of 128 tokens x 128
// wgu rows (64 hidden units) and the two consumer warpgroups on different
// tiles, taking the block's tiles in turn. While one warpgroup runs its GeGLU
// epilogue (tanh, products, stores), the other's wgmma keeps the tensor cores
// busy; in the cooperative form both stop for the epilogue of their shared tile.
// Warpgroup 0 is the producer: one thread issues the bulk tensor copies of the
// block's tiles in order, through 6 stages shared by both consumers. The
// consumers take turns in their main loops (the "turn" mbarriers): a consumer
// starts waiting for its tile's chunks only once the other has consumed all of
// its own, so a stage is never more than one phase ahead of the consumer
// waiting on it and the phase parity of the wait is unambiguous.
#include <algorithm>
#include <cstring>

#include "kernels/sm90a/GegluWgmmaForms.h"
#include "kernels/sm90a/HopperDevice.cuh"

namespace fuselab::fusedmlp {
namespace {

using namespace hopper;

constexpr int kBM = 128, kBN = 128, kBK = kTileK, kStages = 6;
constexpr int kThreads = 384;
constexpr int kABytes = kBM * kBK * 2;
constexpr int kBBytes = kBN * kBK * 2;
constexpr int kStageBytes = kABytes + kBBytes;
constexpr size_t kSmemBytes = 1024 /* alignment slack */ + size_t(kStages) * kStageBytes + (2 * kStages + 2) * 8;

template <ElemType E>
__global__ void __launch_bounds__(kThreads, 1)
    gegluGemmPingpongKernel(const __grid_constant__ CUtensorMap map_x, const __grid_constant__ CUtensorMap map_w,
                            typename Elem<E>::T* __restrict__ act, int m, int dim, int hidden) {
#ifdef FUSELAB_HAS_WGMMA
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (smemAddr(smem_raw) & 1023)) & 1023);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kStages * kStageBytes);
  uint64_t* empty = full + kStages;
  uint64_t* turn = empty + kStages;  // turn[w]: consumer w may start its next main loop
  const int wg = threadIdx.x / 128;
  const int chunks = (dim + kBK - 1) / kBK;
  const int tiles_n = (2 * hidden + kBN - 1) / kBN;
  const int tiles = tiles_n * ((m + kBM - 1) / kBM);

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarInit(&full[s], 1);
      mbarInit(&empty[s], 4);  // one arrival per warp of the warpgroup that used the stage
    }
    mbarInit(&turn[0], 1);
    mbarInit(&turn[1], 1);
    mbarInitFence();
  }
  __syncthreads();

  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x == 0) {
      int it = 0;  // chunks loaded so far, over the block's tiles in order
      for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int m0 = (tile / tiles_n) * kBM, n0 = (tile % tiles_n) * kBN;
        for (int c = 0; c < chunks; ++c, ++it) {
          const int s = it % kStages;
          if (it >= kStages) mbarWait(&empty[s], ((it / kStages) - 1) & 1);
          mbarExpectTx(&full[s], kStageBytes);
          tmaLoad2d(smem + s * kStageBytes, &map_x, c * kBK, m0, &full[s]);
          tmaLoad2d(smem + s * kStageBytes + kABytes, &map_w, c * kBK, n0, &full[s]);
        }
      }
    }
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int me = wg - 1;  // takes the block's tiles me, me + 2, me + 4, ...
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    int waits = 0;  // turns waited for so far: the parity of the next wait
    for (int j = me, tile = blockIdx.x + me * gridDim.x; tile < tiles; j += 2, tile += 2 * gridDim.x) {
      if (j > 0) mbarWait(&turn[me], (waits++) & 1);  // the other consumer is done with its chunks
      const int m0 = (tile / tiles_n) * kBM, n0 = (tile % tiles_n) * kBN;
      float top[kBN / 2], bottom[kBN / 2];  // rows m0..m0+63 and m0+64..m0+127
#pragma unroll
      for (int i = 0; i < kBN / 2; ++i) top[i] = bottom[i] = 0.0f;
      int it = j * chunks;  // this tile's first chunk in the producer's order
      for (int c = 0; c < chunks; ++c, ++it) {
        const int s = it % kStages;
        mbarWait(&full[s], (it / kStages) & 1);
        const unsigned char* a = smem + s * kStageBytes;
        const unsigned char* b = smem + s * kStageBytes + kABytes;
        wgmmaFence();
#pragma unroll
        for (int k = 0; k < kBK / 16; ++k) {
          Wgmma<kBN>::run<E>(top, smemDesc(a + k * 32), smemDesc(b + k * 32));
          Wgmma<kBN>::run<E>(bottom, smemDesc(a + 64 * 128 + k * 32), smemDesc(b + k * 32));
        }
        wgmmaCommit();
        // Keep this chunk's wgmma in flight; the previous one has retired, so its stage is free.
        wgmmaWait<1>();
        if (c > 0 && lane == 0) mbarArrive(&empty[(it - 1) % kStages]);
      }
      wgmmaWait<0>();
      if (lane == 0) mbarArrive(&empty[(it - 1) % kStages]);
      if (threadIdx.x % 128 == 0) mbarArrive(&turn[1 - me]);  // its turn: epilogue here, main loop there

      const int row = m0 + warp * 16 + lane / 4, h = n0 / 2 + (lane % 4) * 2;
      storeGeglu<E, kBN / 16>(act, m, hidden, row, h, top);
      storeGeglu<E, kBN / 16>(act, m, hidden, row + 64, h, bottom);
    }
  }
#else
  __trap();  // this translation unit is meant for sm_90a only
#endif
}

template <ElemType E>
void launchTyped(const GegluGemmMaps& maps, void* act, int64_t m, int64_t hidden, int64_t dim, cudaStream_t stream) {
  auto kernel = gegluGemmPingpongKernel<E>;
  static std::atomic<uint64_t> raised{0};
  raiseSmemLimitOnce(reinterpret_cast<const void*>(kernel), int(kSmemBytes), raised,
                     "shared-memory limit of the pingpong GeGLU GEMM");
  int device = 0, sms = 0;
  checkCuda(cudaGetDevice(&device), "current device");
  checkCuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "multiprocessor count");
  const int64_t tiles = ((2 * hidden + kBN - 1) / kBN) * ((m + kBM - 1) / kBM);
  // Each block should have tiles for both consumers.
  const int grid = int(std::max<int64_t>(1, std::min<int64_t>((tiles + 1) / 2, sms)));
  CUtensorMap map_x, map_w;
  std::memcpy(&map_x, maps.x, sizeof map_x);
  std::memcpy(&map_w, maps.w, sizeof map_w);
  kernel<<<grid, kThreads, kSmemBytes, stream>>>(map_x, map_w, static_cast<typename Elem<E>::T*>(act), int(m),
                                                  int(dim), int(hidden));
  checkCuda(cudaGetLastError(), "GeGLU GEMM launch (wgmma, pingpong)");
}

}  // namespace

void launchGegluGemmPingpong(const GegluGemmMaps& maps, ElemType type, void* act, int64_t m, int64_t dim,
                             int64_t hidden, cudaStream_t stream) {
  if (type == ElemType::BF16) {
    launchTyped<ElemType::BF16>(maps, act, m, hidden, dim, stream);
  } else {
    launchTyped<ElemType::FP16>(maps, act, m, hidden, dim, stream);
  }
}

}  // namespace fuselab::fusedmlp
