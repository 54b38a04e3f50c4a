#include "kernels/CeilingBenchmarks.h"

#include <ATen/Context.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/randn.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "profiling/capture_api/Workload.h"

#ifdef FUSELAB_HAVE_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime.h>
#endif

namespace fuselab {

#ifdef FUSELAB_HAVE_CUDA
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw WorkloadError(std::string(what) + ": " + cudaGetErrorString(e));
}

// Milliseconds `enqueue` takes on the current stream, timed with CUDA events.
template <class F>
double timedMs(F&& enqueue) {
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  check(cudaEventRecord(start, stream), "cudaEventRecord");
  enqueue();
  check(cudaEventRecord(stop, stream), "cudaEventRecord");
  check(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms;
}

// Restores cuBLAS's TF32 setting on the way out.
class Tf32Setting {
 public:
  explicit Tf32Setting(bool on) : before_(at::globalContext().allowTF32CuBLAS()) {
    at::globalContext().setAllowTF32CuBLAS(on);
  }
  ~Tf32Setting() { at::globalContext().setAllowTF32CuBLAS(before_); }

 private:
  bool before_;
};

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

double gemmTflops(at::ScalarType dtype, int64_t n, bool tf32, int reps) {
  c10::cuda::CUDAGuard guard(0);
  Tf32Setting setting(tf32);
  const auto options = at::TensorOptions().dtype(dtype).device(at::kCUDA, 0);
  at::Tensor a = at::randn({n, n}, options), b = at::randn({n, n}, options), c = at::empty({n, n}, options);
  for (int i = 0; i < 3; ++i) at::mm_out(c, a, b);  // cuBLAS picks and loads its kernel
  const double ms = timedMs([&] {
    for (int i = 0; i < reps; ++i) at::mm_out(c, a, b);
  });
  return 2.0 * double(n) * double(n) * double(n) * reps / (ms * 1e-3) / 1e12;
}

double copyGbps(int64_t bytes, int reps) {
  c10::cuda::CUDAGuard guard(0);
  const auto options = at::TensorOptions().dtype(at::kByte).device(at::kCUDA, 0);
  at::Tensor src = at::empty({bytes}, options), dst = at::empty({bytes}, options);
  src.fill_(1);
  dst.copy_(src);  // first touch
  const double ms = timedMs([&] {
    for (int i = 0; i < reps; ++i) dst.copy_(src);
  });
  return 2.0 * double(bytes) * reps / (ms * 1e-3) / 1e9;
}

CeilingMeasurement measureCeilings() {
  if (!at::hasCUDA()) throw WorkloadError("no CUDA GPU is available to measure");
  c10::cuda::CUDAGuard guard(0);
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  CeilingMeasurement m;
  m.gpu = prop.name;
  // The best of a few sizes and three tries each: the peak, not a typical GEMM.
  auto best = [&](at::ScalarType dtype, bool tf32, const char* label, int reps) {
    double top = 0;
    int64_t at_n = 0;
    for (int64_t n : {4096, 8192}) {
      for (int t = 0; t < 3; ++t) {
        const double r = gemmTflops(dtype, n, tf32, reps);
        if (r > top) top = r, at_n = n;
      }
    }
    m.details.push_back(std::string(label) + ": " + fixed(top, 1) + " TFLOP/s (best of " + std::to_string(reps) +
                        " GEMMs of " + std::to_string(at_n) + "^3, 3 tries, sizes 4096 and 8192)");
    return top;
  };
  m.bf16_tflops = best(at::kBFloat16, false, "bf16", 20);
  m.fp16_tflops = best(at::kHalf, false, "fp16", 20);
  m.tf32_tflops = best(at::kFloat, true, "tf32", 10);
  m.fp32_tflops = best(at::kFloat, false, "fp32", 3);

  size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const int64_t bytes = std::min<int64_t>(int64_t(1) << 30, int64_t(free_bytes / 8));
  double top = 0;
  for (int t = 0; t < 3; ++t) top = std::max(top, copyGbps(bytes, 10));
  m.copy_gbps = top;
  m.details.push_back("copy: " + fixed(top, 0) + " GB/s (read + written, best of 3 x 10 device-to-device copies of " +
                      std::to_string(bytes >> 20) + " MiB)");
  return m;
}

#else

double gemmTflops(at::ScalarType, int64_t, bool, int) { throw WorkloadError("this fuselab build has no CUDA"); }
double copyGbps(int64_t, int) { throw WorkloadError("this fuselab build has no CUDA"); }
CeilingMeasurement measureCeilings() { throw WorkloadError("this fuselab build has no CUDA"); }

#endif

}  // namespace fuselab
