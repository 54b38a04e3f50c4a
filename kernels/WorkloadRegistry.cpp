#include "kernels/WorkloadRegistry.h"

#include <ATen/Context.h>
#include <ATen/DeviceAccelerator.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "kernels/CudaGraphWorkload.h"
#include "kernels/TorchWorkload.h"
#include "profiling/capture_api/WorkloadCatalog.h"

namespace fuselab {
namespace {

// One line per workload.
std::vector<WorkloadEntry> entries() {
  return {
      matmulAddEntry(),
      linearEntry(),
      mlpEntry(),
      fusedMlpEntry(),
      tpMlpEntry(),
      trainStepEntry(),
      allReduceEntry(),
  };
}

// Device memory the runtime needs beyond the tensors (cuBLAS workspaces,
// allocator rounding, a graph's private pool bookkeeping).
constexpr double kCudaSlackBytes = 512.0 * (1 << 20);
// Share of the available memory a workload may plan to use.
constexpr double kUsableShare = 0.9;

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / double(1ull << 30));
  return buf;
}

const WorkloadEntry& findEntry(const std::vector<WorkloadEntry>& all, const std::string& name) {
  for (const auto& e : all)
    if (e.info.name == name) return e;
  std::string choices;
  for (const auto& e : all) choices += (choices.empty() ? "" : ", ") + e.info.name;
  throw WorkloadError("unknown workload '" + name + "' (choose " + choices + ")");
}

void checkDevice(const WorkloadParams& p, const WorkloadInfo& info) {
  if (p.device == Device::Cuda) {
    if (!at::hasCUDA()) throw NoGpuError("no CUDA GPU available on this machine");
    return;
  }
  if (info.cuda_only) throw WorkloadError(info.name + " runs only on a CUDA GPU (no CPU version)");
  if (p.graph) throw WorkloadError("CUDA graph mode needs a CUDA GPU: drop --graph or use --device cuda");
  // bf16, fp16 and fp32 all run on the CPU with LibTorch 2.11; the reduced
  // precisions are slow there unless the CPU has bf16/fp16 matrix units.
}

void checkMemory(const WorkloadParams& p, const WorkloadEntry& e) {
  double need = e.estimate_bytes(p);
  if (p.graph) need *= 2.0;  // eager warmup outputs plus the graph's own pool
  if (p.device == Device::Cuda) need += kCudaSlackBytes;
  double have = availableBytes(p.device);
  if (have <= 0) return;  // unknown: the allocation will tell
  if (need > kUsableShare * have) {
    std::ostringstream o;
    o << p.workload << " with these sizes needs about " << gib(need) << " of "
      << (p.device == Device::Cuda ? "GPU" : "host") << " memory, but only " << gib(have)
      << " is available: reduce batch, seq, dim or hidden";
    throw WorkloadError(o.str());
  }
}

}  // namespace

double availableBytes(Device device) {
  if (device == Device::Cuda) {
    if (!at::hasCUDA()) return 0;
    // The caching allocator answers "Invalid device argument" until CUDA is
    // initialised, which happens lazily at the first CUDA tensor.
    at::globalContext().lazyInitDevice(at::kCUDA);
    auto [free_bytes, total] = at::accelerator::getMemoryInfo(0);
    (void)total;
    auto stats = at::accelerator::getDeviceStats(0);
    constexpr size_t kAll = static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE);
    double cached_unused = double(stats.reserved_bytes[kAll].current - stats.allocated_bytes[kAll].current);
    return double(free_bytes) + std::max(0.0, cached_unused);
  }
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  long long kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return double(kib) * 1024.0;
  return 0;
}

std::vector<WorkloadInfo> listWorkloads() {
  std::vector<WorkloadInfo> out;
  for (auto& e : entries()) out.push_back(std::move(e.info));
  return out;
}

std::unique_ptr<Workload> makeWorkload(const WorkloadParams& params) {
  const auto all = entries();
  const WorkloadEntry& entry = findEntry(all, params.workload);
  WorkloadParams p = params;
  p.variant = catalogVariant(entry.info, params.variant);
  checkSizes(p);
  checkDevice(p, entry.info);
  checkMemory(p, entry);
  std::unique_ptr<Workload> w = entry.make(p);
  if (p.graph) w = makeCudaGraphWorkload(std::move(w), p.device);
  return w;
}

}  // namespace fuselab
