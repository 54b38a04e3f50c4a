// Device helpers shared by the fused MLP kernels: the GeGLU activation, bf16/fp16
// conversions, and thin wrappers over cp.async, ldmatrix and mma.sync (sm_80+)
// and over mbarriers (sm_90+).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/FusedMlpKernels.h"

namespace fuselab::fusedmlp {

inline void checkCuda(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string("fused_mlp: ") + what + ": " + cudaGetErrorString(err));
  }
}

// Raises a kernel's dynamic shared-memory limit once per device: the call costs
// host time, and the small launches are host-bound enough to notice.
inline void raiseSmemLimitOnce(const void* kernel, int bytes, std::atomic<uint64_t>& done_devices,
                               const char* what) {
  int device = 0;
  checkCuda(cudaGetDevice(&device), "current device");
  const uint64_t bit = device < 64 ? uint64_t(1) << device : 0;
  if (bit != 0 && (done_devices.load(std::memory_order_acquire) & bit) != 0) return;
  checkCuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes), what);
  done_devices.fetch_or(bit, std::memory_order_release);
}

// The bf16 and fp16 forms of a kernel's argument struct: fill() fills the one of
// `type` and returns its address, for cudaLaunchKernelExC.
template <template <ElemType> class Args> struct TypedArgs {
  Args<ElemType::BF16> bf{};
  Args<ElemType::FP16> fp{};
  template <class Fill> void* fill(ElemType type, Fill&& f) {
    if (type == ElemType::BF16) {
      f(bf);
      return &bf;
    }
    f(fp);
    return &fp;
  }
};

struct LaunchOptions {
  bool cooperative = false;  // all blocks co-resident, for cooperative groups' grid barrier
  bool pdl = false;          // programmatic dependent launch: the next kernel may start early
  int cluster = 1;           // blocks per cluster (sm_90)
};

// Launches a kernel with one argument struct and the attributes `options` asks for.
inline void launchWithOptions(const void* kernel, void* args, int grid, int threads, size_t smem,
                              cudaStream_t stream, const LaunchOptions& options, const char* what) {
  cudaLaunchAttribute attrs[3];
  unsigned n = 0;
  if (options.cooperative) {
    attrs[n].id = cudaLaunchAttributeCooperative;
    attrs[n++].val.cooperative = 1;
  }
  if (options.pdl) {
    attrs[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[n++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (options.cluster > 1) {
    attrs[n].id = cudaLaunchAttributeClusterDimension;
    attrs[n].val.clusterDim.x = unsigned(options.cluster);
    attrs[n].val.clusterDim.y = 1;
    attrs[n++].val.clusterDim.z = 1;
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(unsigned(grid));
  config.blockDim = dim3(unsigned(threads));
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = attrs;
  config.numAttrs = n;
  void* kernel_args[] = {args};
  checkCuda(cudaLaunchKernelExC(&config, kernel, kernel_args), what);
}

// gelu_tanh(x) = 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), with the
// hardware tanh (one special-function instruction, relative error about 2^-11,
// below bf16's and at fp16's rounding). The exp-and-divide form took two, and
// the large GEMM's epilogue is bound by them: 141.1 against 147.9 us at 8192
// tokens (H200, GeGLU GEMM alone, same run). It saturates cleanly at both ends.
__device__ __forceinline__ float geluTanh(float x) {
  const float u = x * fmaf(0.7978845608028654f * 0.044715f, x * x, 0.7978845608028654f);
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(u));
  const float half_x = 0.5f * x;
  return fmaf(half_x, t, half_x);
}

template <ElemType E> struct Elem;
template <> struct Elem<ElemType::BF16> {
  using T = __nv_bfloat16;
  using T2 = __nv_bfloat162;
  static __device__ __forceinline__ T2 pack(float a, float b) { return __floats2bfloat162_rn(a, b); }
  static __device__ __forceinline__ float2 unpack(T2 v) { return __bfloat1622float2(v); }
};
template <> struct Elem<ElemType::FP16> {
  using T = __half;
  using T2 = __half2;
  static __device__ __forceinline__ T2 pack(float a, float b) { return __floats2half2_rn(a, b); }
  static __device__ __forceinline__ float2 unpack(T2 v) { return __half22float2(v); }
};

// gelu_tanh(g[i]) * u[i] and the same at i + 1, packed: every GeGLU epilogue's
// pair of an accumulator fragment's gate and up values.
template <ElemType E>
__device__ __forceinline__ typename Elem<E>::T2 gegluPair(const float* g, const float* u, int i) {
  return Elem<E>::pack(geluTanh(g[i]) * u[i], geluTanh(g[i + 1]) * u[i + 1]);
}

// The operands of every small-token kernel's argument struct: x, the interleaved
// gate/up weights, the down weights and y, and the plan's sizes.
template <ElemType E> struct MlpOperands {
  using T = typename Elem<E>::T;
  const T* x;
  const T* wgu;
  const T* wd;
  T* y;
  int m, dim, hidden;  // tokens, and the MLP's sizes

  void setOperands(const SmallMlpPlan& plan, const void* x_in, const void* wgu_in, const void* wd_in, void* y_out) {
    x = static_cast<const T*>(x_in);
    wgu = static_cast<const T*>(wgu_in);
    wd = static_cast<const T*>(wd_in);
    y = static_cast<T*>(y_out);
    m = int(plan.m);
    dim = int(plan.dim);
    hidden = int(plan.hidden);
  }
};

__device__ __forceinline__ uint32_t smemAddr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16-byte global->shared copy through L2 only (data written by other blocks of
// the same launch is never served stale from L1). src_bytes 0 writes zeros.
__device__ __forceinline__ void cpAsync16(void* dst, const void* src, bool valid) {
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smemAddr(dst)), "l"(src),
               "r"(src_bytes));
}
__device__ __forceinline__ void cpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void prefetchL2(const void* p) {
  asm volatile("prefetch.global.L2 [%0];\n" ::"l"(p));
}

// Programmatic dependent launch (sm_90+; no-ops on older targets, and when the
// launch did not ask for it). launchDependents: the next kernel in the stream may
// start its blocks. gridDependencyWait: returns once the previous kernel in the
// stream has finished and its writes are visible.
__device__ __forceinline__ void launchDependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void gridDependencyWait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// mbarriers (sm_90+; no-ops on older targets, which never reach them): a
// barrier in shared memory that bulk copies complete on, counting the bytes it
// expects. mbarInitFence makes the mbarriers this thread initialized visible to
// the copies and to the cluster's other blocks.
__device__ __forceinline__ void mbarInit(uint64_t* bar, unsigned count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smemAddr(bar)), "r"(count));
#endif
}
__device__ __forceinline__ void mbarInitFence() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void mbarExpectTx(uint64_t* bar, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smemAddr(bar)), "r"(bytes)
               : "memory");
#endif
}
__device__ __forceinline__ void mbarArrive(uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smemAddr(bar)) : "memory");
#endif
}
__device__ __forceinline__ void mbarWait(uint64_t* bar, unsigned parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smemAddr(bar)), "r"(parity)
        : "memory");
  } while (!done);
#endif
}

__device__ __forceinline__ void ldmatrixX4(uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smemAddr(p)));
}
__device__ __forceinline__ void ldmatrixX1(uint32_t& r, const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r) : "r"(smemAddr(p)));
}
__device__ __forceinline__ void ldmatrixX2(uint32_t (&r)[2], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(smemAddr(p)));
}

// d += a * b for one m16n8k16 tile, fp32 accumulation.
template <ElemType E>
__device__ __forceinline__ void mma16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  if constexpr (E == ElemType::BF16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
}

// d += a * b for one m16n8k8 tile (the last 8 of a K that is not a multiple of 16).
template <ElemType E>
__device__ __forceinline__ void mma1688(float (&d)[4], const uint32_t (&a)[2], uint32_t b) {
  if constexpr (E == ElemType::BF16) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b));
  }
}

// p[0] += a, p[1] += b in global memory, atomically, without reading back (p 8-byte aligned).
__device__ __forceinline__ void atomicAddPair(float* p, float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("red.relaxed.gpu.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(p), "f"(a), "f"(b) : "memory");
#else
  atomicAdd(p, a);
  atomicAdd(p + 1, b);
#endif
}

// Counters that blocks arrive at (gpu scope). atomicAddAcqRel: releases the
// block's writes (ordered before by __syncthreads) with the arrival and acquires
// those of every block that arrived before (atomicAddRelease: only releases);
// loadAcquire: sees the writes of every arrival it counts.
__device__ __forceinline__ unsigned loadAcquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned atomicAddRelease(unsigned* p, unsigned v) {
  unsigned old;
  asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
__device__ __forceinline__ unsigned atomicAddAcqRel(unsigned* p, unsigned v) {
  unsigned old;
  asm volatile("atom.add.acq_rel.gpu.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}

// Barrier of `members` co-resident blocks on one word, one atomic per block:
// the first adds 2^31 - (members - 1), the others 1, so the word's top bit
// flips exactly when the last one arrives, and its low bits are back where they
// started: ready for the next launch without a reset.
__device__ inline void blockBarrier(unsigned* word, unsigned members, bool first) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned add = first ? 0x80000000u - (members - 1) : 1u;
    // Release: the block's writes (ordered before by __syncthreads) go before
    // the arrival; acquire: everyone else's are visible after the flip.
    const unsigned before = atomicAddRelease(word, add);
    while (((before ^ loadAcquire(word)) & 0x80000000u) == 0) {
    }
  }
  __syncthreads();
}

__device__ __forceinline__ unsigned long long globalTimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

}  // namespace fuselab::fusedmlp
