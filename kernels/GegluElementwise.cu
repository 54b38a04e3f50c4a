// The Liger-style comparison point: act = gelu_tanh(gate) * up in one elementwise
// pass (what torch.compile also produces between the three cuBLAS GEMMs). One read
// of gate and up, one write of act, 16-byte accesses, fp32 math.
#include <algorithm>

#include "kernels/FusedMlpDevice.cuh"

namespace fuselab::fusedmlp {
namespace {

constexpr int kThreads = 256;

template <ElemType E>
__global__ void gegluElementwiseKernel(const uint4* __restrict__ gate, const uint4* __restrict__ up,
                                       uint4* __restrict__ act, int64_t vectors) {
  using T2 = typename Elem<E>::T2;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors;
       i += int64_t(gridDim.x) * blockDim.x) {
    const uint4 g = gate[i], u = up[i];
    const T2* g2 = reinterpret_cast<const T2*>(&g);
    const T2* u2 = reinterpret_cast<const T2*>(&u);
    uint4 out;
    T2* o2 = reinterpret_cast<T2*>(&out);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float2 gf = Elem<E>::unpack(g2[k]), uf = Elem<E>::unpack(u2[k]);
      o2[k] = Elem<E>::pack(geluTanh(gf.x) * uf.x, geluTanh(gf.y) * uf.y);
    }
    act[i] = out;
  }
}

}  // namespace

void launchGegluElementwise(ElemType type, const void* gate, const void* up, void* act, int64_t count,
                            cudaStream_t stream) {
  if (count % 8 != 0) throw std::invalid_argument("the GeGLU elementwise kernel needs a multiple of 8 elements");
  for (const void* p : {gate, up, static_cast<const void*>(act)}) {
    if (reinterpret_cast<uintptr_t>(p) % 16 != 0) {
      throw std::invalid_argument("the GeGLU elementwise kernel needs 16-byte aligned tensors");
    }
  }
  const int64_t vectors = count / 8;
  if (vectors == 0) return;
  int sms = 0, device = 0;
  checkCuda(cudaGetDevice(&device), "current device");
  checkCuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "multiprocessor count");
  const int64_t wanted = (vectors + kThreads - 1) / kThreads;
  const int blocks = int(std::min<int64_t>(wanted, int64_t(sms) * 16));
  auto* g = static_cast<const uint4*>(gate);
  auto* u = static_cast<const uint4*>(up);
  auto* a = static_cast<uint4*>(act);
  if (type == ElemType::BF16) {
    gegluElementwiseKernel<ElemType::BF16><<<blocks, kThreads, 0, stream>>>(g, u, a, vectors);
  } else {
    gegluElementwiseKernel<ElemType::FP16><<<blocks, kThreads, 0, stream>>>(g, u, a, vectors);
  }
  checkCuda(cudaGetLastError(), "GeGLU elementwise launch");
}

}  // namespace fuselab::fusedmlp
