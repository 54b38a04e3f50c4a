// What a workload is asked to be: the parameters every workload takes, the
// description of each workload, and the errors for bad parameters. Plain
// structs: the window's Workbench panel, the command line and the kernels
// all use them, so they carry no kernel code and no LibTorch.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace fuselab {

enum class DType { BF16, FP16, FP32 };
enum class Device { Cuda, Cpu };

std::string dtypeName(DType d);                // "bf16", "fp16", "fp32"
int64_t elementBytes(DType d);                 // bytes of one element: 2, 2, 4
DType parseDType(const std::string& s);        // throws WorkloadError listing the choices
std::string deviceName(Device d);              // "cuda", "cpu"
Device parseDevice(const std::string& s);

// Parameters shared by every workload; each uses the ones that apply to it.
struct WorkloadParams {
  std::string workload = "mlp";  // see workloadCatalog()
  int64_t batch = 64;
  int64_t seq = 128;   // tokens = batch * seq for the MLPs
  int64_t dim = 768;   // in features (matmul_add: the square size)
  int64_t hidden = 3072;
  int64_t out = 64;    // linear's out features
  DType dtype = DType::BF16;
  Device device = Device::Cuda;
  bool graph = false;  // capture one forward as a CUDA graph and replay it
  std::string variant; // workload-specific ("" = its default), e.g. mlp: geglu|stacked
  uint64_t seed = 0;
  // Distributed workloads (tp_mlp): processes of the job, one per GPU or
  // CPU process, and the straggler lesson: rank delay_rank sleeps delay_us
  // before its all-reduce in every forward (-1: no rank sleeps).
  int ranks = 1;
  int delay_rank = -1;
  int64_t delay_us = 0;
};

// A bad parameter or an unusable device: the message says what and the allowed range.
class WorkloadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Device cuda was asked for on a machine without a usable CUDA GPU. The
// message is for every front end; each adds how to choose the CPU in its own
// words (the command line: --device cpu; the window: a button).
class NoGpuError : public WorkloadError {
 public:
  using WorkloadError::WorkloadError;
};

// The device ran out of memory while building or running a workload (the
// estimate in makeWorkload passed, but the allocation still failed).
class WorkloadOutOfMemory : public WorkloadError {
 public:
  using WorkloadError::WorkloadError;
};

struct WorkloadInfo {
  std::string name;         // what --workload takes
  std::string title;        // "nn.Linear", "Stacked GeGLU MLP", ...
  std::string description;
  std::vector<std::string> variants;  // first is the default
  WorkloadParams defaults;      // on the GPU (device cuda)
  WorkloadParams cpu_defaults;  // on the CPU: sizes and a dtype that capture in about a second on a laptop
  bool cuda_only = false;
  bool distributed = false;  // runs as --ranks processes (capture, sweep: each point a run)

  // The defaults for `device` (a CUDA-only workload has only its GPU ones).
  const WorkloadParams& defaultsFor(Device device) const {
    return device == Device::Cpu && !cuda_only ? cpu_defaults : defaults;
  }
};

// Size limits (inclusive) that every workload checks. The memory check when
// a workload is built usually rejects large shapes well before these.
struct SizeLimits {
  static constexpr int64_t kMin = 1;
  static constexpr int64_t kMaxBatch = 1 << 20;
  static constexpr int64_t kMaxSeq = 1 << 20;
  static constexpr int64_t kMaxDim = 1 << 16;
  static constexpr int64_t kMaxHidden = 1 << 18;
  static constexpr int64_t kMaxOut = 1 << 16;
  static constexpr int kMaxRanks = 64;
  static constexpr int64_t kMaxDelayUs = 10'000'000;
};

// Throws WorkloadError unless every size is within SizeLimits; the message
// names the parameter, the value and the allowed range. Also checks ranks
// and the delay (delay_rank below ranks).
void checkSizes(const WorkloadParams& params);

}  // namespace fuselab
