// The roofline of a GPU and each GPU op's place under it (../shared/DESIGN.md,
// "Work and speed of light").
//
// attainable(I) = min(peak_flops(precision), I x copy bandwidth); the ideal
// time of a kernel is the time its work takes at the roof,
// max(flops / peak, bytes / bandwidth), and its speed of light is
// ideal / actual duration (1 = on the roof). The duration is the time the op
// adds to its stream (StreamTime.h): a kernel started early by programmatic
// dependent launch does not count its wait for the kernel before it.
//
// Bound:
// - latency: the ideal time is under RooflineRules::latency_ideal_ns (2 us)
//   and the kernel reached under RooflineRules::latency_max_sol (50%) of its
//   roof: it is too short for its fixed start/finish cost (a couple of us on
//   a datacenter GPU) to be hidden, so neither roof is what limits it;
// - otherwise compute when the intensity is at or above the ridge point
//   (peak / bandwidth), memory below it;
// - host_transfer: copies to or from the host (PCIe/NVLink-C2C, not device memory);
// - unknown: no work model, or no ceiling for its precision.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiling/analysis/work/KernelWork.h"

namespace fuselab {

struct Ceilings {
  std::string source;  // "measured" or "published"
  std::string gpu;     // the GPU name they belong to
  // Dense GEMM peaks in TFLOP/s and device-memory copy bandwidth in GB/s
  // (bytes read + written per second); 0 = not known.
  double bf16_tflops = 0;
  double fp16_tflops = 0;
  double tf32_tflops = 0;
  double fp32_tflops = 0;
  double copy_gbps = 0;

  double peakTflops(Precision p) const;  // 0 when not known
};

// Published datasheet peaks (dense, no sparsity) for a GPU name as CUDA
// reports it ("NVIDIA H100 80GB HBM3"); nullopt when the GPU is not in the table.
std::optional<Ceilings> publishedCeilings(std::string_view gpu_name);

struct RooflineRules {
  int64_t latency_ideal_ns = 2'000;
  double latency_max_sol = 0.5;
};

enum class Bound : uint8_t { Compute, Memory, Latency, HostTransfer, Unknown };
std::string_view boundName(Bound b);  // "compute", "memory", "latency", "host_transfer", "unknown"

// Figures of one GPU op or of a group of them (only those with known work).
struct RooflineFigures {
  uint64_t known = 0;    // GPU ops with known work
  uint64_t unknown = 0;  // GPU ops without
  double flops = 0;
  double bytes = 0;
  int64_t dur_ns = 0;    // of the known ones
  double ideal_ns = 0;   // sum of the known ones' ideal times (0 without ceilings)
  Precision precision = Precision::Unknown;
  // Derived (finish()):
  double intensity = 0;        // flops / bytes (0 when no bytes)
  double achieved_tflops = 0;  // flops / dur
  double achieved_gbps = 0;    // bytes / dur
  std::optional<double> speed_of_light;  // ideal / dur; nullopt without ceilings
  Bound bound = Bound::Unknown;
};

// The figures of one GPU op. `kernel_name` picks tf32 for fp32 kernels that say so.
RooflineFigures rooflineOf(const GpuOpWork& w, int64_t dur_ns, std::string_view kernel_name, bool host_transfer,
                           const std::optional<Ceilings>& ceilings, const RooflineRules& rules = {});

// Adds `one` (from rooflineOf) into a group total; call finish() after the
// last (a group of host copies: set bound = HostTransfer before finish()).
void accumulate(RooflineFigures& total, const RooflineFigures& one);
void finish(RooflineFigures& total, const std::optional<Ceilings>& ceilings, const RooflineRules& rules = {});

// Ceilings for a trace: `measured` when given and for the trace's GPU, else the
// published ones for its GPU name (deviceProperties), else nullopt.
std::optional<Ceilings> ceilingsForTrace(const Trace& trace, const std::vector<Ceilings>& measured);

}  // namespace fuselab
