// Large-token GeGLU MLP, kernel 1 of 2, Hopper path (compiled for sm_90a only; see
// kernels/CMakeLists.txt): act = gelu_tanh(x wg^T) * (x wu^T) as one GEMM over the
// interleaved [gate|up] weights with the GeGLU in the epilogue.
//
// Persistent: one block per multiprocessor walks the tiles of 128 tokens x 256 wgu
// rows (128 hidden units), K step 64, 4 stages. Warpgroup 0 is the producer: one
// thread issues bulk tensor copies (TMA, 128-byte swizzle) that complete on the
// stage's "full" mbarrier, and runs ahead into the next tile while the consumers are
// in their epilogue. Warpgroups 1 and 2 each run wgmma m64n256k16 on their 64 rows,
// operands straight from shared memory, and free a stage through its "empty"
// mbarrier once the wgmma that read it has retired. Gate and up rows are interleaved
// by 8 in wgu, so accumulator column groups 2p and 2p+1 of a thread are the gate and
// up values of the same hidden units.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>

#include "kernels/FusedMlpDevice.cuh"

namespace fuselab::fusedmlp {
namespace {

constexpr int kBM = 128, kBN = 256, kBK = 64, kStages = 4;
constexpr int kThreads = 384;
constexpr int kABytes = kBM * kBK * 2;
constexpr int kBBytes = kBN * kBK * 2;
constexpr int kStageBytes = kABytes + kBBytes;
constexpr size_t kSmemBytes = 1024 /* alignment slack */ + size_t(kStages) * kStageBytes + 2 * kStages * 8;
static_assert(sizeof(CUtensorMap) == sizeof(GegluGemmMaps::x), "GegluGemmMaps holds one CUtensorMap per operand");

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define FUSELAB_HAS_WGMMA 1
#endif

#ifdef FUSELAB_HAS_WGMMA
__device__ __forceinline__ void mbarInit(uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smemAddr(bar)), "r"(count));
}
__device__ __forceinline__ void mbarExpectTx(uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smemAddr(bar)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbarArrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smemAddr(bar)) : "memory");
}
__device__ __forceinline__ void mbarWait(uint64_t* bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smemAddr(bar)), "r"(parity)
        : "memory");
  } while (!done);
}
__device__ __forceinline__ void tmaLoad2d(void* dst, const CUtensorMap* map, int c0, int c1, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::
          "r"(smemAddr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(smemAddr(bar))
      : "memory");
}

// Shared-memory matrix descriptor: K-major tile, 128-byte swizzle, 8-row groups 1024 bytes apart.
__device__ __forceinline__ uint64_t smemDesc(const void* p) {
  uint64_t d = (smemAddr(p) & 0x3FFFF) >> 4;
  d |= uint64_t(1) << 16;            // leading byte offset (unused for swizzled K-major)
  d |= uint64_t(1024 >> 4) << 32;    // stride byte offset
  d |= uint64_t(1) << 62;            // 128-byte swizzle
  return d;
}

#define FUSELAB_WGMMA_D_REGS                                                                         \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                        \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "                  \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "                  \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "                  \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "                  \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "                  \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "      \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" "}"
#define FUSELAB_D8(i) \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define FUSELAB_D128                                                                                   \
  FUSELAB_D8(0), FUSELAB_D8(8), FUSELAB_D8(16), FUSELAB_D8(24), FUSELAB_D8(32), FUSELAB_D8(40),        \
      FUSELAB_D8(48), FUSELAB_D8(56), FUSELAB_D8(64), FUSELAB_D8(72), FUSELAB_D8(80), FUSELAB_D8(88),  \
      FUSELAB_D8(96), FUSELAB_D8(104), FUSELAB_D8(112), FUSELAB_D8(120)

// d += A(64 x 16, desc_a) * B(16 x 256, desc_b), both K-major in shared memory.
template <ElemType E>
__device__ __forceinline__ void wgmma64x256(float (&d)[128], uint64_t desc_a, uint64_t desc_b) {
  if constexpr (E == ElemType::BF16) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " FUSELAB_WGMMA_D_REGS
                 ", %128, %129, p, 1, 1, 0, 0;\n}\n"
                 : FUSELAB_D128
                 : "l"(desc_a), "l"(desc_b), "r"(1));
  } else {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " FUSELAB_WGMMA_D_REGS
                 ", %128, %129, p, 1, 1, 0, 0;\n}\n"
                 : FUSELAB_D128
                 : "l"(desc_a), "l"(desc_b), "r"(1));
  }
}
#endif  // FUSELAB_HAS_WGMMA

template <ElemType E>
__global__ void __launch_bounds__(kThreads, 1)
    gegluGemmWgmmaKernel(const __grid_constant__ CUtensorMap map_x, const __grid_constant__ CUtensorMap map_w,
                         typename Elem<E>::T* __restrict__ act, int m, int dim, int hidden) {
#ifdef FUSELAB_HAS_WGMMA
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (smemAddr(smem_raw) & 1023)) & 1023);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kStages * kStageBytes);
  uint64_t* empty = full + kStages;
  const int wg = threadIdx.x / 128;
  const int chunks = (dim + kBK - 1) / kBK;
  const int tiles_n = (2 * hidden + kBN - 1) / kBN;
  const int tiles = tiles_n * ((m + kBM - 1) / kBM);

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarInit(&full[s], 1);
      mbarInit(&empty[s], 8);  // one arrival per consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x == 0) {
      int it = 0;  // chunks loaded so far, over all tiles: picks the stage and its phase
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
    const int half = wg - 1;  // which 64 rows of the block tile
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    int it = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      const int m0 = (tile / tiles_n) * kBM, n0 = (tile % tiles_n) * kBN;
      float d[128];
#pragma unroll
      for (int i = 0; i < 128; ++i) d[i] = 0.0f;

      for (int c = 0; c < chunks; ++c, ++it) {
        const int s = it % kStages;
        mbarWait(&full[s], (it / kStages) & 1);
        const unsigned char* a = smem + s * kStageBytes + half * (64 * 128);
        const unsigned char* b = smem + s * kStageBytes + kABytes;
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
        for (int k = 0; k < kBK / 16; ++k) wgmma64x256<E>(d, smemDesc(a + k * 32), smemDesc(b + k * 32));
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        // Keep this chunk's wgmma in flight; the previous one has retired, so its stage is free.
        asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
        if (c > 0 && lane == 0) mbarArrive(&empty[(it - 1) % kStages]);
      }
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
      if (lane == 0) mbarArrive(&empty[(it - 1) % kStages]);  // the producer may refill it during the epilogue

      const int row = m0 + half * 64 + warp * 16 + lane / 4;
      const int h_base = n0 / 2 + (lane % 4) * 2;
#pragma unroll
      for (int p = 0; p < 16; ++p) {
        const int h = h_base + p * 8;
        if (h >= hidden) continue;
        const float* g = d + 8 * p;      // column group 2p: gate
        const float* u = d + 8 * p + 4;  // column group 2p+1: up
        if (row < m) {
          *reinterpret_cast<typename Elem<E>::T2*>(act + int64_t(row) * hidden + h) =
              Elem<E>::pack(geluTanh(g[0]) * u[0], geluTanh(g[1]) * u[1]);
        }
        if (row + 8 < m) {
          *reinterpret_cast<typename Elem<E>::T2*>(act + int64_t(row + 8) * hidden + h) =
              Elem<E>::pack(geluTanh(g[2]) * u[2], geluTanh(g[3]) * u[3]);
        }
      }
    }
  }
#else
  __trap();  // this translation unit is meant for sm_90a only
#endif
}

PFN_cuTensorMapEncodeTiled_v12000 tensorMapEncoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &status) ==
            cudaSuccess &&
        status == cudaDriverEntryPointSuccess) {
      fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
    }
  });
  if (!fn) throw std::runtime_error("fused_mlp: the CUDA driver has no cuTensorMapEncodeTiled");
  return fn;
}

// 2-D map over a row-major [rows, cols] matrix, boxes of box_rows x 64 elements,
// 128-byte swizzle; elements outside the matrix read as zero.
CUtensorMap makeMap(ElemType type, const void* base, int64_t rows, int64_t cols, int box_rows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(cols) * 2};
  const cuuint32_t box[2] = {cuuint32_t(kBK), cuuint32_t(box_rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  const CUresult r = tensorMapEncoder()(
      &map, type == ElemType::BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,
      const_cast<void*>(base), dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    throw std::runtime_error("fused_mlp: cuTensorMapEncodeTiled failed with error " + std::to_string(int(r)));
  }
  return map;
}

template <ElemType E>
void launchTyped(const GegluGemmMaps& maps, void* act, int64_t m, int64_t hidden, int64_t dim,
                 cudaStream_t stream) {
  auto kernel = gegluGemmWgmmaKernel<E>;
  static std::atomic<uint64_t> raised{0};
  raiseSmemLimitOnce(reinterpret_cast<const void*>(kernel), int(kSmemBytes), raised,
                     "shared-memory limit of the wgmma GeGLU GEMM");
  int device = 0, sms = 0;
  checkCuda(cudaGetDevice(&device), "current device");
  checkCuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "multiprocessor count");
  const int64_t tiles = ((2 * hidden + kBN - 1) / kBN) * ((m + kBM - 1) / kBM);
  const int grid = int(std::min<int64_t>(tiles, sms));
  CUtensorMap map_x, map_w;
  std::memcpy(&map_x, maps.x, sizeof map_x);
  std::memcpy(&map_w, maps.w, sizeof map_w);
  kernel<<<grid, kThreads, kSmemBytes, stream>>>(map_x, map_w, static_cast<typename Elem<E>::T*>(act), int(m),
                                                  int(dim), int(hidden));
  checkCuda(cudaGetLastError(), "GeGLU GEMM launch (wgmma)");
}

}  // namespace

bool gegluGemmWgmmaAvailable(int device) {
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    return false;
  }
  if (major != 9 || minor != 0) return false;
  cudaFuncAttributes attrs{};
  const bool loadable = cudaFuncGetAttributes(&attrs, gegluGemmWgmmaKernel<ElemType::BF16>) == cudaSuccess;
  cudaGetLastError();  // a missing sm_90a image is an answer here, not an error to keep
  return loadable;
}

void encodeGegluGemmMaps(GegluGemmMaps& maps, ElemType type, const void* x, const void* wgu, int64_t m,
                         int64_t dim, int64_t hidden) {
  if (reinterpret_cast<uintptr_t>(x) % 16 != 0 || reinterpret_cast<uintptr_t>(wgu) % 16 != 0) {
    throw std::invalid_argument("the wgmma GeGLU GEMM needs 16-byte aligned x and weights");
  }
  const CUtensorMap map_x = makeMap(type, x, m, dim, kBM);
  const CUtensorMap map_w = makeMap(type, wgu, 2 * hidden, dim, kBN);
  std::memcpy(maps.x, &map_x, sizeof map_x);
  std::memcpy(maps.w, &map_w, sizeof map_w);
}

void launchGegluGemmWgmma(const GegluGemmMaps& maps, ElemType type, void* act, int64_t m, int64_t dim,
                          int64_t hidden, cudaStream_t stream) {
  if (m <= 0) return;
  if (type == ElemType::BF16) {
    launchTyped<ElemType::BF16>(maps, act, m, hidden, dim, stream);
  } else {
    launchTyped<ElemType::FP16>(maps, act, m, hidden, dim, stream);
  }
}

}  // namespace fuselab::fusedmlp
