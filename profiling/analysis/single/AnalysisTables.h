// The kernel and CPU op tables (AnalysisTables.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiling/analysis/memory/OpMemory.h"
#include "profiling/analysis/single/AnalysisScope.h"
#include "profiling/analysis/work/Roofline.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

// Hardware counters a capture measured (capture --counters) on some calls of
// one kernel name: the calls of its counter pass, one forward's worth.
struct MeasuredKernelFigures {
  uint64_t calls = 0;                        // calls that carry counters
  std::optional<double> bytes_per_call;      // mean DRAM bytes read + written
  std::optional<double> tensor_active_pct;   // mean tensor pipe activity, % of peak
};

struct KernelRow {
  std::string name;
  Category category = Category::Kernel;  // Kernel, Memcpy or Memset
  uint64_t count = 0;
  int64_t total_ns = 0;
  double mean_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  RooflineFigures roofline;  // filled by analyzeTrace (AnalysisRoofline.cpp)
  MeasuredKernelFigures measured;  // filled by addMeasuredFigures (AnalysisMeasured.cpp)
  // The model's bytes per call (roofline.bytes / roofline.known), when known.
  std::optional<double> modelBytesPerCall() const;
};

// The in-scope GPU ops grouped by (name, category), by total time descending.
std::vector<KernelRow> kernelTable(const Trace& trace, const AnalysisScope& scope);

struct CpuOpRow {
  std::string name;
  Category category = Category::CpuOp;  // CpuOp, CudaRuntime or CudaDriver
  uint64_t calls = 0;
  int64_t self_ns = 0;   // duration minus the time of events nested directly in it
  int64_t total_ns = 0;  // duration (a recursive call counts once per call)
  int64_t gpu_ns = 0;    // GPU time of the ops launched from inside it (0 for aten::t)
  uint64_t gpu_ops = 0;  // how many GPU ops it launched
  // Memory allocated (net bytes) inside it, as torch's key_averages() counts
  // it (OpMemory.h); 0 when the trace recorded no memory.
  int64_t cpu_memory_bytes = 0;
  int64_t self_cpu_memory_bytes = 0;
  int64_t device_memory_bytes = 0;
  int64_t self_device_memory_bytes = 0;
};

// cpu_op, cuda_runtime and cuda_driver events of the whole trace grouped by
// (name, category), by total time descending; with the memory of `memory`
// when it has any.
std::vector<CpuOpRow> cpuOpTable(const Trace& trace, const OpMemory& memory = {});

// The CPU op table as CSV (RFC 4180 quoting), a header line then a row each:
// name, kind, calls, total/self/GPU time in ns, GPU ops, and the four memory
// columns in bytes.
std::string cpuOpTableCsv(const std::vector<CpuOpRow>& rows);

}  // namespace fuselab
