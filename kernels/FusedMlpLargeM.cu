// Large-token GeGLU MLP, kernel 1 of 2 (portable path, sm_80 and newer):
// act = gelu_tanh(x wg^T) * (x wu^T) as ONE tensor-core GEMM over the interleaved
// [gate|up] weights, with the GeGLU in the epilogue. Only act [m, hidden] reaches
// memory; the two [m, hidden] GEMM outputs never do. The down GEMM (kernel 2) runs
// through cuBLAS (see FusedMlp.cpp). On Hopper the wgmma kernel in sm90a/ is used
// instead when it is available.
//
// Block tile 128 tokens x 128 wgu rows (64 hidden units), K step 32, 4-stage cp.async
// ring, ldmatrix + mma.sync m16n8k16, 8 warps as 2 x 4 with 64 x 32 warp tiles.
// Because wgu interleaves gate and up rows by 8, every warp's n8 tiles come in
// (gate, up) pairs for the same hidden units: the GeGLU needs no data exchange.
#include <string>

#include "kernels/FusedMlpDevice.cuh"

namespace fuselab::fusedmlp {
namespace {

constexpr int kBM = 128, kBN = 128, kBK = 32, kStages = 4, kThreads = 256;
constexpr int kStride = kBK + 8;  // padded shared-memory row: conflict-free ldmatrix
constexpr int kStageElems = (kBM + kBN) * kStride;
constexpr size_t kSmemBytes = size_t(kStages) * kStageElems * 2;

template <ElemType E>
__global__ void __launch_bounds__(kThreads)
    gegluGemmMmaKernel(const typename Elem<E>::T* __restrict__ x, const typename Elem<E>::T* __restrict__ wgu,
                       typename Elem<E>::T* __restrict__ act, int m, int dim, int hidden) {
  using T = typename Elem<E>::T;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* ring = reinterpret_cast<T*>(smem_raw);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp / 4, wn = warp % 4;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  const int chunks = (dim + kBK - 1) / kBK;

  auto load = [&](int c) {
    T* st = ring + (c % kStages) * kStageElems;
    const int kc = c * kBK;
#pragma unroll
    for (int it = 0; it < (kBM + kBN) * (kBK / 8) / kThreads; ++it) {
      const int i = tid + it * kThreads;
      const int r = i / (kBK / 8), seg = i % (kBK / 8), col = kc + seg * 8;
      const T* src;
      bool ok;
      if (r < kBM) {
        ok = m0 + r < m && col < dim;
        src = x + int64_t(m0 + r) * dim + col;
      } else {
        ok = n0 + (r - kBM) < 2 * hidden && col < dim;
        src = wgu + int64_t(n0 + r - kBM) * dim + col;
      }
      cpAsync16(st + r * kStride + seg * 8, ok ? src : x, ok);
    }
  };

  float acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

#pragma unroll
  for (int c = 0; c < kStages - 1; ++c) {
    if (c < chunks) load(c);
    cpAsyncCommit();
  }
  for (int c = 0; c < chunks; ++c) {
    cpAsyncWait<kStages - 2>();
    __syncthreads();
    if (c + kStages - 1 < chunks) load(c + kStages - 1);
    cpAsyncCommit();

    const T* as = ring + (c % kStages) * kStageElems;
    const T* bs = as + kBM * kStride;
#pragma unroll
    for (int ks = 0; ks < kBK / 16; ++ks) {
      uint32_t a[4][4], b[4][2];
#pragma unroll
      for (int mt = 0; mt < 4; ++mt) {
        ldmatrixX4(a[mt], as + (wm * 64 + mt * 16 + (lane & 15)) * kStride + ks * 16 + (lane >> 4) * 8);
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        ldmatrixX2(b[j], bs + (wn * 32 + j * 8 + (lane & 7)) * kStride + ks * 16 + ((lane >> 3) & 1) * 8);
      }
#pragma unroll
      for (int mt = 0; mt < 4; ++mt)
#pragma unroll
        for (int j = 0; j < 4; ++j) mma16816<E>(acc[mt][j], a[mt], b[j]);
    }
  }
  cpAsyncWait<0>();

  // Epilogue: tiles 2p (gate) and 2p+1 (up) hold the same 8 hidden units.
  const int h_base = n0 / 2 + wn * 16 + (lane % 4) * 2;
#pragma unroll
  for (int mt = 0; mt < 4; ++mt) {
    const int row = m0 + wm * 64 + mt * 16 + lane / 4;
#pragma unroll
    for (int p = 0; p < 2; ++p) {
      const int h = h_base + p * 8;
      if (h >= hidden) continue;
      const float* g = acc[mt][2 * p];
      const float* u = acc[mt][2 * p + 1];
      using T2 = typename Elem<E>::T2;
      if (row < m) *reinterpret_cast<T2*>(act + int64_t(row) * hidden + h) = gegluPair<E>(g, u, 0);
      if (row + 8 < m) *reinterpret_cast<T2*>(act + int64_t(row + 8) * hidden + h) = gegluPair<E>(g, u, 2);
    }
  }
}

template <ElemType E>
void launchTyped(const void* x, const void* wgu, void* act, int64_t m, int64_t dim, int64_t hidden,
                 cudaStream_t stream) {
  using T = typename Elem<E>::T;
  auto kernel = gegluGemmMmaKernel<E>;
  static std::atomic<uint64_t> raised{0};
  raiseSmemLimitOnce(reinterpret_cast<const void*>(kernel), int(kSmemBytes), raised,
                     "shared-memory limit of the GeGLU GEMM");
  const dim3 grid(unsigned((2 * hidden + kBN - 1) / kBN), unsigned((m + kBM - 1) / kBM));
  kernel<<<grid, kThreads, kSmemBytes, stream>>>(static_cast<const T*>(x), static_cast<const T*>(wgu),
                                                  static_cast<T*>(act), int(m), int(dim), int(hidden));
  checkCuda(cudaGetLastError(), "GeGLU GEMM launch (mma.sync)");
}

}  // namespace

void launchGegluGemmMma(ElemType type, const void* x, const void* wgu, void* act, int64_t m, int64_t dim,
                        int64_t hidden, cudaStream_t stream) {
  if (m <= 0) return;
  if (m > 65535LL * kBM) throw std::invalid_argument("too many tokens for the GeGLU GEMM grid");
  if (type == ElemType::BF16) {
    launchTyped<ElemType::BF16>(x, wgu, act, m, dim, hidden, stream);
  } else {
    launchTyped<ElemType::FP16>(x, wgu, act, m, dim, hidden, stream);
  }
}

}  // namespace fuselab::fusedmlp
