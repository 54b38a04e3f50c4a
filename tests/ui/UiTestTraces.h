// Small traces built in memory for the timeline layout tests and the folding
// benchmark: a CPU thread and GPU streams, times in nanoseconds.
#pragma once

#include <string>

#include "profiling/trace/Trace.h"
#include "tests/support/AddEvent.h"

namespace fuselab::test {

// `n` kernels of `dur` ns every `period` ns on GPU 0 stream 7, each launched
// by a cudaLaunchKernel on CPU thread 1 just before it, all inside one
// ProfilerStep#1: a large trace of tiny events. Not finalized.
inline Trace manyTinyKernels(size_t n, int64_t dur = 2, int64_t period = 5) {
  Trace t;
  uint32_t cpu = t.trackFor("1", "1");
  uint32_t gpu = t.trackFor("0", "7");
  const int64_t base = 1'000'000;
  addEvent(t, cpu, "ProfilerStep#1", base - 10, static_cast<int64_t>(n) * period + 20, Category::UserAnnotation);
  for (size_t i = 0; i < n; ++i) {
    int64_t at = base + static_cast<int64_t>(i) * period;
    auto corr = static_cast<int64_t>(i + 1);
    addEvent(t, cpu, "cudaLaunchKernel", at, 1, Category::CudaRuntime, corr);
    addEvent(t, gpu, "tiny_kernel", at + 1, dur, Category::Kernel, corr);
  }
  return t;
}

}  // namespace fuselab::test
