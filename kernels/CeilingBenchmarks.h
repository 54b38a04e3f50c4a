// The ceilings of the present GPU, measured with short benchmarks through
// LibTorch: the best dense GEMM rate per dtype (square cuBLAS GEMMs of a few
// sizes) and the device-to-device copy bandwidth (bytes read + written per
// second). Used by `fuselab ceilings` through the capture module
// (CaptureBackend::measureCeilings) and by its GPU test.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "profiling/capture_api/CaptureTypes.h"

namespace fuselab {

// TFLOP/s of `reps` back-to-back [n, n] x [n, n] products of `dtype` on GPU 0
// after a warm-up, timed with CUDA events (fp32 with TF32 on when `tf32`).
double gemmTflops(at::ScalarType dtype, int64_t n, bool tf32, int reps);

// GB/s of `reps` device-to-device copies of `bytes` bytes, counting each byte
// read and written (2 x bytes per copy), as the roofline counts traffic.
double copyGbps(int64_t bytes, int reps);

// All of them, the best of a few sizes and tries. Throws WorkloadError
// without a usable GPU.
CeilingMeasurement measureCeilings();

}  // namespace fuselab
