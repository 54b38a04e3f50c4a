// Matching GPU ops across traces by what launched them rather than by kernel
// name (cuBLAS picks other kernels, with other names, for the same GEMM): a
// GPU op's slot is the innermost cpu_op around its launch call (aten::mm),
// that op's "Input Dims" where recorded, and the op's order among the step's
// GPU ops with the same op and shapes. GPU ops whose launch has no enclosing
// cpu_op fall back to their own name.
#pragma once

#include <compare>
#include <cstddef>
#include <string>
#include <vector>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct KernelSlotKey {
  std::string op;      // launching cpu_op, or "" (then `name` identifies the slot)
  std::string shapes;  // its "Input Dims" as compact JSON, or ""
  std::string name;    // the GPU op's name when `op` is "", else ""
  Category category = Category::Kernel;
  size_t ordinal = 0;  // 0-based among the step's GPU ops with the same key

  auto operator<=>(const KernelSlotKey&) const = default;
};

// "aten::mm [[8192,768],[768,3072]] #2" (memcpy and memset slots add
// " (gpu_memset)"), or the kernel name and "#k".
std::string kernelSlotLabel(const KernelSlotKey& key);

struct KernelOccurrence {
  KernelSlotKey key;
  std::string name;  // the GPU op's own name
  double dur_ns = 0;
};

// The in-scope GPU ops of a trace with their slots, one list per sample of
// stepSamples() (per step, or the whole trace without steps), in launch order.
std::vector<std::vector<KernelOccurrence>> kernelOccurrences(const Trace& trace, const TraceAnalysis& analysis);

}  // namespace fuselab
