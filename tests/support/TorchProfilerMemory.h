// torch.profiler's own record of a workload's memory, step by step, to hold
// our capture's against: torch's Kineto profiler driven from C++ with
// profile_memory around the same workload's forwards (each in a
// ProfilerStep#k user scope, as our capture's steps are, after one profiled
// forward outside them, as our profiler warm-up), written by torch
// and read back with our importer. CPU activities only: Kineto then leaves
// CUPTI alone, which our capture in the same process used before it.
#pragma once

#include <ATen/record_function.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <filesystem>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "kernels/WorkloadRegistry.h"
#include "profiling/analysis/single/AnalysisSteps.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/MemoryEvents.h"

namespace fuselab::test {

inline Trace torchProfilerMemoryTrace(const WorkloadParams& params, int warmup, int steps,
                                      const std::filesystem::path& out) {
  namespace prof = torch::autograd::profiler;
  using torch::profiler::impl::ActivityType;
  using torch::profiler::impl::ProfilerConfig;
  using torch::profiler::impl::ProfilerState;
  const std::unique_ptr<Workload> w = makeWorkload(params);
  for (int i = 0; i < warmup; ++i) w->forward();
  w->synchronize();
  const ProfilerConfig config(ProfilerState::KINETO, /*report_input_shapes=*/false, /*profile_memory=*/true);
  const std::set<ActivityType> activities{ActivityType::CPU};
  prof::prepareProfiler(config, activities);
  prof::enableProfiler(config, activities);
  // As our capture's profiler warm-up: the first step then frees an output
  // the profiler saw allocated (c10 reports no free of a block of unknown size).
  w->forward();
  for (int k = 0; k < steps; ++k) {
    RECORD_USER_SCOPE("ProfilerStep#" + std::to_string(k));
    w->forward();
  }
  w->synchronize();
  prof::disableProfiler()->save(out.string());
  return importChromeTrace(out);
}

// One step's memory on one kind of device: allocations and frees, counted
// and summed.
struct StepMemory {
  size_t allocations = 0, frees = 0;
  int64_t allocated_bytes = 0, freed_bytes = 0;
  bool operator==(const StepMemory&) const = default;
};

inline std::ostream& operator<<(std::ostream& os, const StepMemory& s) {
  return os << "{" << s.allocations << " allocations, " << s.allocated_bytes << " B; " << s.frees << " frees, "
            << s.freed_bytes << " B}";
}

// Per ProfilerStep#k, the memory events inside it on devices `on_device`
// accepts (isCpuMemory, isDeviceMemory).
inline std::vector<StepMemory> memoryPerStep(const Trace& trace, bool (*on_device)(int)) {
  const MemoryEvents m = readMemoryEvents(trace);
  std::vector<StepMemory> out;
  for (const StepStats& s : computeSteps(trace)) {
    StepMemory step;
    for (const MemoryEvent& e : m.events) {
      if (e.ts_ns < s.start_ns || e.ts_ns > s.end_ns || !on_device(e.device_type)) continue;
      if (e.bytes > 0) ++step.allocations, step.allocated_bytes += e.bytes;
      if (e.bytes < 0) ++step.frees, step.freed_bytes -= e.bytes;
    }
    out.push_back(step);
  }
  return out;
}

}  // namespace fuselab::test
