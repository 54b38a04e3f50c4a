#include "profiling/capture_api/WorkloadParams.h"

namespace fuselab {

int64_t elementBytes(DType d) { return d == DType::FP32 ? 4 : 2; }

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

namespace {

void checkRange(const char* name, int64_t value, int64_t max) {
  if (value < SizeLimits::kMin || value > max)
    throw WorkloadError(std::string(name) + " = " + std::to_string(value) + " is out of range: allowed " +
                        std::to_string(SizeLimits::kMin) + " to " + std::to_string(max));
}

}  // namespace

void checkSizes(const WorkloadParams& p) {
  checkRange("batch", p.batch, SizeLimits::kMaxBatch);
  checkRange("seq", p.seq, SizeLimits::kMaxSeq);
  checkRange("dim", p.dim, SizeLimits::kMaxDim);
  checkRange("hidden", p.hidden, SizeLimits::kMaxHidden);
  checkRange("out", p.out, SizeLimits::kMaxOut);
  checkRange("ranks", p.ranks, SizeLimits::kMaxRanks);
  if (p.delay_rank >= p.ranks)
    throw WorkloadError("the delayed rank " + std::to_string(p.delay_rank) + " is not a rank of " +
                        std::to_string(p.ranks) + " (allowed 0 to " + std::to_string(p.ranks - 1) + ")");
  if (p.delay_rank >= 0 && (p.delay_us < 0 || p.delay_us > SizeLimits::kMaxDelayUs))
    throw WorkloadError("the delay of rank " + std::to_string(p.delay_rank) + " = " + std::to_string(p.delay_us) +
                        " us is out of range: allowed 0 to " + std::to_string(SizeLimits::kMaxDelayUs));
}

}  // namespace fuselab
