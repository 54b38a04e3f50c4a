// Device helpers of the Hopper-only kernels (compiled for sm_90a alone, see
// CMakeLists.txt here): bulk tensor copies (TMA) and wgmma on K-major
// tiles with the 128-byte swizzle, plus the host side of the copies' tensor maps.
// The tiles are the copies' boxes of [rows, 64] 2-byte elements: each row 128
// bytes, its 16-byte pieces swizzled by the row's index mod 8, 8-row groups 1024
// bytes apart; a tile starts on a 1024-byte boundary.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>

#include "kernels/FusedMlpDevice.cuh"

namespace fuselab::fusedmlp::hopper {

constexpr int kTileK = 64;           // elements of K per tile row (128 bytes)
constexpr int kTileRowBytes = 128;

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define FUSELAB_HAS_WGMMA 1
#endif

#ifdef FUSELAB_HAS_WGMMA
// Box (c0: column, c1: row) of `map` into `dst`, completing on `bar`.
__device__ __forceinline__ void tmaLoad2d(void* dst, const CUtensorMap* map, int c0, int c1, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::
          "r"(smemAddr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(smemAddr(bar))
      : "memory");
}
// The same box into the same offset of every block of the cluster in `blocks`
// (a bit mask), each copy completing on the mbarrier at `bar`'s offset there.
__device__ __forceinline__ void tmaLoad2dMulticast(void* dst, const CUtensorMap* map, int c0, int c1, uint64_t* bar,
                                                   uint16_t blocks) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(smemAddr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(smemAddr(bar)), "h"(blocks)
      : "memory");
}
// Orders this thread's ordinary global writes before later bulk-copy reads of
// them (the copies go through the async proxy).
__device__ __forceinline__ void fenceProxyAsyncGlobal() { asm volatile("fence.proxy.async.global;\n" ::: "memory"); }
// The same for this thread's shared-memory writes, before a bulk store reads them.
__device__ __forceinline__ void fenceProxyAsyncShared() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// Bulk tensor store of the box at `src` to (c0: column, c1: row) of `map`, in
// this thread's current bulk group; elements outside the matrix are left out.
__device__ __forceinline__ void tmaStore2d(const CUtensorMap* map, int c0, int c1, const void* src) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(map), "r"(c0),
               "r"(c1), "r"(smemAddr(src))
               : "memory");
}
__device__ __forceinline__ void bulkCommit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// This thread's bulk stores have read their shared memory (it may be written again).
__device__ __forceinline__ void bulkWaitRead() { asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory"); }
// ... and written global memory.
__device__ __forceinline__ void bulkWaitAll() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }

// Barrier `id` (1-15; 0 is __syncthreads) over `threads` threads, whole warps.
__device__ __forceinline__ void namedBarrierSync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// Shared-memory matrix descriptor of a tile (see the top of this file).
__device__ __forceinline__ uint64_t smemDesc(const void* p) {
  uint64_t d = (smemAddr(p) & 0x3FFFF) >> 4;
  d |= uint64_t(1) << 16;            // leading byte offset (unused for swizzled K-major)
  d |= uint64_t(1024 >> 4) << 32;    // stride byte offset
  d |= uint64_t(1) << 62;            // 128-byte swizzle
  return d;
}

__device__ __forceinline__ void wgmmaFence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmmaCommit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmmaWait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// The accumulator operands of wgmma, by register count.
#define FUSELAB_WGMMA_REGS_8 "{%0, %1, %2, %3, %4, %5, %6, %7}"
#define FUSELAB_WGMMA_REGS_16 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}"
#define FUSELAB_WGMMA_REGS_24 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23}"
#define FUSELAB_WGMMA_REGS_32 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define FUSELAB_WGMMA_REGS_48 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47}"
#define FUSELAB_WGMMA_REGS_64 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" "}"
#define FUSELAB_WGMMA_REGS_96 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95" "}"
#define FUSELAB_WGMMA_REGS_128 \
  "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" "}"

#define FUSELAB_D8(i) \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define FUSELAB_D16(i) FUSELAB_D8(i), FUSELAB_D8(i + 8)
#define FUSELAB_D32(i) FUSELAB_D16(i), FUSELAB_D16(i + 16)
#define FUSELAB_WGMMA_ARGS_8 FUSELAB_D8(0)
#define FUSELAB_WGMMA_ARGS_16 FUSELAB_D16(0)
#define FUSELAB_WGMMA_ARGS_24 FUSELAB_D16(0), FUSELAB_D8(16)
#define FUSELAB_WGMMA_ARGS_32 FUSELAB_D32(0)
#define FUSELAB_WGMMA_ARGS_48 FUSELAB_D32(0), FUSELAB_D16(32)
#define FUSELAB_WGMMA_ARGS_64 FUSELAB_D32(0), FUSELAB_D32(32)
#define FUSELAB_WGMMA_ARGS_96 FUSELAB_D32(0), FUSELAB_D32(32), FUSELAB_D32(64)
#define FUSELAB_WGMMA_ARGS_128 FUSELAB_D32(0), FUSELAB_D32(32), FUSELAB_D32(64), FUSELAB_D32(96)

// d = A(64 x 16) * B(16 x N) + (accumulate ? d : 0), A and B K-major tiles in
// shared memory (descriptors); each thread holds N / 2 accumulators. Starting a
// sum with accumulate false, rather than zeroing d first, keeps ordinary
// instructions off the accumulators, which would make ptxas serialize wgmma.
template <int N> struct Wgmma;
#define FUSELAB_DEFINE_WGMMA(N, R, RB, RP)                                                                              \
  template <> struct Wgmma<N> {                                                                                 \
    template <ElemType E> static __device__ __forceinline__ void run(float (&d)[R], uint64_t a, uint64_t b, bool accumulate = true) {  \
      if constexpr (E == ElemType::BF16) {                                                                      \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #RP ", 0;\n"                                         \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.bf16.bf16 " FUSELAB_WGMMA_REGS_##R         \
                     ", %" #R ", %" #RB ", p, 1, 1, 0, 0;\n}\n"                                                \
                     : FUSELAB_WGMMA_ARGS_##R                                                                   \
                     : "l"(a), "l"(b), "r"(int(accumulate)));                                                                 \
      } else {                                                                                                  \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #RP ", 0;\n"                                         \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.f16.f16 " FUSELAB_WGMMA_REGS_##R           \
                     ", %" #R ", %" #RB ", p, 1, 1, 0, 0;\n}\n"                                                \
                     : FUSELAB_WGMMA_ARGS_##R                                                                   \
                     : "l"(a), "l"(b), "r"(int(accumulate)));                                                                 \
      }                                                                                                         \
    }                                                                                                           \
  };
FUSELAB_DEFINE_WGMMA(16, 8, 9, 10)
FUSELAB_DEFINE_WGMMA(32, 16, 17, 18)
FUSELAB_DEFINE_WGMMA(48, 24, 25, 26)
FUSELAB_DEFINE_WGMMA(64, 32, 33, 34)
FUSELAB_DEFINE_WGMMA(96, 48, 49, 50)
FUSELAB_DEFINE_WGMMA(128, 64, 65, 66)
FUSELAB_DEFINE_WGMMA(192, 96, 97, 98)
FUSELAB_DEFINE_WGMMA(256, 128, 129, 130)
#undef FUSELAB_DEFINE_WGMMA

// The GeGLU epilogue of a [gate|up] accumulator d of a m64 n(16 Q) wgmma (wgu's
// interleave: n8 groups 2q and 2q + 1 are the gate and up values of the same
// 8 hidden units): act[row, h] = gelu_tanh(gate) * up for this thread's rows
// `row` and row + 8 and its hidden units h_first + 8q + 0..1, for q < Q; rows
// from m on and units from `hidden` on are left out.
template <ElemType E, int Q>
__device__ __forceinline__ void storeGeglu(typename Elem<E>::T* act, int m, int hidden, int row, int h_first,
                                           const float* d) {
  using T2 = typename Elem<E>::T2;
#pragma unroll
  for (int q = 0; q < Q; ++q) {
    const int h = h_first + q * 8;
    if (h >= hidden) continue;
    const float* g = d + 8 * q;
    const float* u = d + 8 * q + 4;
    if (row < m) *reinterpret_cast<T2*>(act + int64_t(row) * hidden + h) = gegluPair<E>(g, u, 0);
    if (row + 8 < m) *reinterpret_cast<T2*>(act + int64_t(row + 8) * hidden + h) = gegluPair<E>(g, u, 2);
  }
}

// The same epilogue into shared memory, for bulk stores: this warpgroup's 64
// rows of the tile, as boxes of [64 rows][U units] side by side (U = 16 or 32:
// rows of 32 or 64 bytes, swizzled as the store's map says, so a warp's 8 rows
// of 16 bytes hit 8 different bank groups). Q as above; every unit is written.
template <ElemType E, int Q, int U>
__device__ __forceinline__ void stageGeglu(unsigned char* out, int lane, int warp, const float* d) {
  static_assert(U == 16 || U == 32, "boxes of 16 or 32 units");
  constexpr int kRowBytes = 2 * U, kChunks = kRowBytes / 16, kRowsPerLine = 128 / kRowBytes;
  using T2 = typename Elem<E>::T2;
  const int row = warp * 16 + lane / 4;  // and row + 8: same swizzle, since 8 is a multiple of kRowsPerLine * kChunks
  const int swizzle = (row / kRowsPerLine) % kChunks;
#pragma unroll
  for (int q = 0; q < Q; ++q) {
    const float* g = d + 8 * q;
    const float* u = d + 8 * q + 4;
    unsigned char* p = out + (q / kChunks) * (64 * kRowBytes) + row * kRowBytes + ((q % kChunks) ^ swizzle) * 16 +
                       (lane % 4) * 4;
    *reinterpret_cast<T2*>(p) = gegluPair<E>(g, u, 0);
    *reinterpret_cast<T2*>(p + 8 * kRowBytes) = gegluPair<E>(g, u, 2);
  }
}
#endif  // FUSELAB_HAS_WGMMA

// --- Host: tensor maps of the bulk tensor copies -----------------------------

inline PFN_cuTensorMapEncodeTiled_v12000 tensorMapEncoder() {
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

// 2-D map over a row-major [rows, cols] matrix of 2-byte elements (16-byte
// aligned, cols a multiple of 8), boxes of box_rows x box_cols elements whose
// rows (2 box_cols bytes: 32, 64 or 128) are swizzled over their full width.
// Loads read elements outside the matrix as zero; stores leave them out.
inline CUtensorMap makeBoxMap(ElemType type, const void* base, int64_t rows, int64_t cols, int box_rows,
                              int box_cols) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(cols) * 2};
  const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  const CUtensorMapSwizzle swizzle = box_cols == 16   ? CU_TENSOR_MAP_SWIZZLE_32B
                                     : box_cols == 32 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                      : CU_TENSOR_MAP_SWIZZLE_128B;
  const CUresult r = tensorMapEncoder()(
      &map, type == ElemType::BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,
      const_cast<void*>(base), dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    throw std::runtime_error("fused_mlp: cuTensorMapEncodeTiled failed with error " + std::to_string(int(r)));
  }
  return map;
}
// The operand tiles of wgmma: boxes of box_rows x 64 elements, 128-byte swizzle.
inline CUtensorMap makeTileMap(ElemType type, const void* base, int64_t rows, int64_t cols, int box_rows) {
  return makeBoxMap(type, base, rows, cols, box_rows, kTileK);
}

// Whether `device` can run this folder's sm_90a code: compute capability 9.0
// and `kernel` (any kernel of the folder) loadable.
inline bool sm90aLoadable(int device, const void* kernel) {
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    return false;
  }
  if (major != 9 || minor != 0) return false;
  cudaFuncAttributes attrs{};
  const bool loadable = cudaFuncGetAttributes(&attrs, kernel) == cudaSuccess;
  cudaGetLastError();  // a missing sm_90a image is an answer here, not an error to keep
  return loadable;
}

}  // namespace fuselab::fusedmlp::hopper
