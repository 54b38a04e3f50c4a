#include "kernels/TorchWorkload.h"

#include <ATen/Context.h>
#include <ATen/DeviceAccelerator.h>
#include <ATen/core/Generator.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/randn.h>

namespace fuselab {

at::ScalarType scalarType(DType d) {
  switch (d) {
    case DType::BF16: return at::kBFloat16;
    case DType::FP16: return at::kHalf;
    case DType::FP32: return at::kFloat;
  }
  return at::kFloat;
}

at::Device torchDevice(Device d) {
  return d == Device::Cuda ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
}

at::Tensor seededRandn(at::IntArrayRef sizes, uint64_t seed, double scale, DType dtype, Device device) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  at::Tensor t = at::randn(sizes, gen, at::TensorOptions().dtype(at::kFloat));
  if (scale != 1.0) t.mul_(scale);
  return t.to(torchDevice(device), scalarType(dtype));
}

void synchronizeDevice(Device device) {
  if (device == Device::Cuda) at::accelerator::synchronizeDevice(0);
}

void throwOutOfMemory(const std::string& what, const std::exception& e) {
  std::string msg = e.what();
  // LibTorch's CUDA message spans several lines (allocator hints); keep the first.
  if (auto nl = msg.find('\n'); nl != std::string::npos) msg.resize(nl);
  throw WorkloadOutOfMemory("out of memory while " + what + ": " + msg +
                            " (reduce batch, seq or hidden, or free memory used by other programs)");
}

}  // namespace fuselab
