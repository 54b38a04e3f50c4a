// Names a launch of our own kernels as an op with its input tensors, so a
// trace records it like an ATen op (a cpu_op with "Input Dims" and "Input
// type" when shapes are recorded) and the analysis knows its work
// (profiling/analysis/work/OpWorkGemm.cpp: fuselab::fused_mlp;
// OpWorkElementwise.cpp: fuselab::geglu). Costs nothing when no profiler listens.
#pragma once

#include <ATen/record_function.h>

namespace fuselab {

// `guard` must outlive the launch; `name` must be a string literal.
template <class... Tensors>
void recordOp(at::RecordFunction& guard, const char* name, const Tensors&... inputs) {
  if (!guard.isActive()) return;
  const c10::IValue in[] = {c10::IValue(inputs)...};
  guard.before(name, c10::ArrayRef<const c10::IValue>(in, sizeof...(Tensors)));
}

}  // namespace fuselab
