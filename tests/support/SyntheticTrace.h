// Builds small traces in memory for the analysis tests: one CPU thread
// (pid 100, tid 100) and GPU streams on device 0, times in nanoseconds.
#pragma once

#include <string>

#include "profiling/trace/Trace.h"
#include "tests/support/AddEvent.h"

namespace fuselab::test {

class SyntheticTrace {
 public:
  SyntheticTrace() { cpu_ = trace_.trackFor("100", "100"); }

  // A CPU event on the main thread (cpu_op unless told otherwise).
  SyntheticTrace& cpu(const std::string& name, int64_t start, int64_t dur, Category cat = Category::CpuOp,
                      int64_t correlation = -1) {
    add(cpu_, name, start, dur, cat, correlation);
    return *this;
  }
  // A cpu_op with an args object ("Input Dims", "Input type", ...).
  SyntheticTrace& op(const std::string& name, int64_t start, int64_t dur, const std::string& args_json) {
    Trace::NewEvent e = newEvent(trace_, name, start, dur, Category::CpuOp);
    e.args = trace_.addArgs(args_json);
    trace_.append(cpu_, e);
    return *this;
  }
  // GPU work with an args object (a memcpy's "bytes").
  SyntheticTrace& gpuWithArgs(const std::string& name, int64_t start, int64_t dur, int64_t correlation, Category cat,
                              const std::string& args_json, int64_t stream = 7) {
    Trace::NewEvent e = newEvent(trace_, name, start, dur, cat);
    e.correlation = correlation;
    e.args = trace_.addArgs(args_json);
    trace_.append(trace_.trackFor("0", std::to_string(stream)), e);
    return *this;
  }
  // A launch call (cuda_runtime) with its correlation id.
  SyntheticTrace& launch(int64_t correlation, int64_t start, int64_t dur,
                         const std::string& name = "cudaLaunchKernel") {
    return cpu(name, start, dur, Category::CudaRuntime, correlation);
  }
  SyntheticTrace& step(int k, int64_t start, int64_t dur) {
    return cpu("ProfilerStep#" + std::to_string(k), start, dur, Category::UserAnnotation);
  }
  // GPU work on device 0, the given stream.
  SyntheticTrace& gpu(const std::string& name, int64_t start, int64_t dur, int64_t correlation,
                      int64_t stream = 7, Category cat = Category::Kernel) {
    add(trace_.trackFor("0", std::to_string(stream)), name, start, dur, cat, correlation);
    return *this;
  }
  // A launch plus the kernel it enqueued.
  SyntheticTrace& launched(const std::string& kernel, int64_t launch_start, int64_t launch_dur, int64_t gpu_start,
                           int64_t gpu_dur, int64_t correlation, int64_t stream = 7) {
    launch(correlation, launch_start, launch_dur);
    return gpu(kernel, gpu_start, gpu_dur, correlation, stream);
  }

  Trace build() {
    trace_.finalize();
    return std::move(trace_);
  }

 private:
  void add(uint32_t track, const std::string& name, int64_t start, int64_t dur, Category cat, int64_t corr) {
    addEvent(trace_, track, name, start, dur, cat, corr);
  }

  Trace trace_;
  uint32_t cpu_ = 0;
};

}  // namespace fuselab::test
