// Work per GPU op: which CPU op's model (OpWork.h) a kernel's FLOPs and bytes
// come from, and how an op's work is split between the kernels it launched.
//
// Rules:
// - memcpy / memset: their own "bytes" arg. A device-to-device copy reads and
//   writes device memory (2 x bytes); host copies and memsets touch it once.
// - A kernel: the launch call's enclosing CPU ops, innermost first; the first
//   with a model (hasWorkModel) is its source (aten::linear -> aten::addmm:
//   addmm). A source op with sources nested in it (attention's math around
//   its bmm and softmax) gives its own kernels what its work leaves after
//   theirs, and none when nothing is left (no double counting): those
//   kernels are then unknown, with that reason. Nested elementwise ops,
//   copies and fills (a backward's zero_) are helpers its model does not
//   count, and are not taken from it.
// - Several kernels from one source op (split-K GEMM + splitKreduce, a GEMM
//   and its memset are not: memsets carry their own bytes): the op's work is
//   split in proportion to the kernels' durations, so each kernel shows the
//   op's intensity and achieved rate; `share` and `op_kernels` say so.
//   Except where the op's model names each kernel's part (fuselab's fused
//   MLP: its GeGLU GEMM and its down GEMM): each kernel gets its part.
// - Inputs the trace leaves out are completed first (KernelWorkInputs.h: a
//   tensor list's dtype, a fused optimizer's parameters).
// - A kernel replayed from a CUDA graph with no op of its own: the work of an
//   earlier eager launch of the same kernel and grid (GraphReplayWork.h).
// - Otherwise (no launch captured, no model, no input dims or types):
//   unknown, with the reason in `note`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiling/analysis/work/OpWork.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct GpuOpWork {
  EventRef op;
  std::optional<Work> work;        // nullopt: unknown
  std::optional<EventRef> source;  // the CPU op whose model gave the work
  std::string note;                // the model used, or why unknown
  uint32_t op_kernels = 1;         // kernels sharing the source op's work
  double share = 1;                // this kernel's fraction of it
};

// One entry per element of `gpu_ops`, same order. `trace` must be finalized.
std::vector<GpuOpWork> attributeWork(const Trace& trace, const std::vector<EventRef>& gpu_ops);

}  // namespace fuselab
