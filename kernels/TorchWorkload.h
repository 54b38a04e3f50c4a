// Workloads built from LibTorch tensors: the tensors they hold (for tests
// that compare against a hand-composed reference) and the helpers they share
// to create seeded tensors on the chosen device and dtype.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "profiling/capture_api/Workload.h"

namespace fuselab {

class TorchWorkload : public Workload {
 public:
  virtual at::Tensor input() const = 0;
  // The result of the last forward (undefined before the first one).
  virtual at::Tensor output() const = 0;
  // Parameters in the order describe() names them.
  virtual std::vector<at::Tensor> weights() const = 0;
};

at::ScalarType scalarType(DType d);
at::Device torchDevice(Device d);  // cuda -> cuda:0

// Seeded normal values scaled by `scale`, drawn on the CPU (so a seed gives
// the same numbers on every device) and moved to the device and dtype.
at::Tensor seededRandn(at::IntArrayRef sizes, uint64_t seed, double scale, DType dtype, Device device);

// Waits for the device (no-op for the CPU).
void synchronizeDevice(Device device);

// Runs `f`, turning a LibTorch out-of-memory error into WorkloadOutOfMemory
// that names what was being done.
[[noreturn]] void throwOutOfMemory(const std::string& what, const std::exception& e);
template <class F>
decltype(auto) translateOutOfMemory(const std::string& what, F&& f);

}  // namespace fuselab

#include <c10/util/Exception.h>

namespace fuselab {
template <class F>
decltype(auto) translateOutOfMemory(const std::string& what, F&& f) {
  try {
    return f();
  } catch (const c10::OutOfMemoryError& e) {
    throwOutOfMemory(what, e);
  }
}
}  // namespace fuselab
