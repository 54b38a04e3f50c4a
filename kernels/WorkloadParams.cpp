#include "kernels/Workload.h"

namespace fuselab {

std::string dtypeName(DType d) {
  switch (d) {
    case DType::BF16: return "bf16";
    case DType::FP16: return "fp16";
    case DType::FP32: return "fp32";
  }
  return "?";
}

DType parseDType(const std::string& s) {
  if (s == "bf16" || s == "bfloat16") return DType::BF16;
  if (s == "fp16" || s == "float16" || s == "half") return DType::FP16;
  if (s == "fp32" || s == "float32" || s == "float") return DType::FP32;
  throw WorkloadError("unknown dtype '" + s + "' (choose bf16, fp16 or fp32)");
}

std::string deviceName(Device d) { return d == Device::Cuda ? "cuda" : "cpu"; }

Device parseDevice(const std::string& s) {
  if (s == "cuda" || s == "gpu") return Device::Cuda;
  if (s == "cpu") return Device::Cpu;
  throw WorkloadError("unknown device '" + s + "' (choose cuda or cpu)");
}

}  // namespace fuselab
