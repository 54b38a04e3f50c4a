// The workload interface: something fuselab can configure from parameters,
// run one forward of, and describe. Eager LibTorch workloads and our own CUDA
// kernels sit behind it; the capture and the UI only see this interface.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace fuselab {

enum class DType { BF16, FP16, FP32 };
enum class Device { Cuda, Cpu };

std::string dtypeName(DType d);                // "bf16", "fp16", "fp32"
DType parseDType(const std::string& s);        // throws WorkloadError listing the choices
std::string deviceName(Device d);              // "cuda", "cpu"
Device parseDevice(const std::string& s);

// Parameters shared by every workload; each uses the ones that apply to it.
struct WorkloadParams {
  std::string workload = "mlp";  // see listWorkloads()
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
};

// A bad parameter or an unusable device: the message says what and the allowed range.
class WorkloadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The device ran out of memory while building or running a workload (the
// estimate in makeWorkload passed, but the allocation still failed).
class WorkloadOutOfMemory : public WorkloadError {
 public:
  using WorkloadError::WorkloadError;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string name() const = 0;         // "mlp"
  virtual std::string regionLabel() const = 0;  // the labelled region of one forward: "mlp_fwd"
  virtual std::string describe() const = 0;     // one line for people: shapes, dtype, variant
  // Enqueues one forward. Does not synchronize; the output stays alive until
  // the next call so the work is not freed under the GPU. Throws
  // WorkloadOutOfMemory when the device runs out of memory.
  virtual void forward() = 0;
  // Waits for all work this workload enqueued (no-op on the CPU).
  virtual void synchronize() = 0;
  // Bytes of weights and FLOPs of one forward (for GB/s and TFLOP/s figures).
  virtual double flopsPerForward() const = 0;
  virtual double weightBytes() const = 0;
};

struct WorkloadInfo {
  std::string name;         // what --workload takes
  std::string title;        // "nn.Linear", "Stacked GeGLU MLP", ...
  std::string description;
  std::vector<std::string> variants;  // first is the default
  WorkloadParams defaults;
  bool cuda_only = false;
};

std::vector<WorkloadInfo> listWorkloads();
// Checks the parameters (sizes, dtype on the device, memory estimate) and
// builds the workload. Throws WorkloadError with a message for people.
std::unique_ptr<Workload> makeWorkload(const WorkloadParams& params);

}  // namespace fuselab
