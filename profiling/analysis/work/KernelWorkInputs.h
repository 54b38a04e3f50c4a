// What a source op's recorded inputs leave out, completed from the rest of
// the trace before its work model runs (KernelWork.cpp):
// - A tensor list's dtype, which torch.profiler never records ("TensorList"):
//   the element type its kernel's name carries (multi_tensor_apply_kernel<..
//   FusedAdamMathFunctor<float, ..>>, CatArrayBatchedCopy<OpaqueType<2u>, ..>).
// - A fused optimizer's parameters, when torch.profiler dropped the list's
//   dims (it does for lists of more than 30 tensors): the gradients the
//   backward accumulated (torch::autograd::AccumulateGrad, which records the
//   gradient's dims and dtype) since the previous fused optimizer step.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "profiling/analysis/work/OpWork.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

// The dtype a kernel's template arguments name first ("c10::BFloat16",
// "float", "short" for OpaqueType<2u>, ...), "" when none.
std::string kernelElementType(std::string_view kernel_name);

class InputCompleter {
 public:
  explicit InputCompleter(const Trace& trace) : trace_(trace) {}
  // Completes `in`, the inputs of the CPU op `op` named `op_name` that
  // launched a kernel named `kernel_name`. Returns what was filled in, for
  // the work's note ("" when nothing).
  std::string complete(EventRef op, std::string_view op_name, std::string_view kernel_name, OpInputs& in);

 private:
  struct Accumulated {
    int64_t start_ns;
    std::vector<int64_t> dims;
    std::string type;
  };
  void collectAccumulatedGradients();

  const Trace& trace_;
  bool collected_ = false;
  std::vector<Accumulated> gradients_;  // by start
  std::vector<int64_t> optimizer_steps_;  // starts of the fused optimizer ops, sorted
};

}  // namespace fuselab
