// capture --memory: LibTorch's allocation reports (CPU and CUDA caching
// allocators, out-of-memory included) recorded as torch.profiler records them
// and written into the trace as the same `[memory]` / `[OutOfMemory]`
// instants with the same args, so our analysis and torch-based tools read
// our captures as they read torch.profiler's.
//
// c10 reports to whatever sits in ThreadLocalDebugInfo's PROFILER_STATE slot,
// and torch's profiler static_casts that slot to its ProfilerStateBase. So
// our reporter *is* a ProfilerStateBase, with a Disabled config that asks for
// memory only: anything in LibTorch that looks there finds a valid state that
// says no profiler is enabled (profilerEnabled() is false, the type NONE),
// rather than an object of another type it would misread. A hook of another
// kind (the CUDA caching allocator's trace tracker) sees CUDA only and no
// CPU allocations nor totals. The state travels to the threads LibTorch
// hands its thread-local state to (autograd's), as torch.profiler's does.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "profiling/trace/Trace.h"

namespace fuselab {

class MemoryCollector {
 public:
  MemoryCollector();
  ~MemoryCollector();  // stops if still recording

  // Starts recording on the calling thread. False, with `error` set, when a
  // profiler (torch.profiler, or another capture) already holds the thread's
  // profiler state.
  bool start(std::string* error);
  // On the thread that started it.
  void stop();
  bool recording() const;
  bool started() const { return reporter_ != nullptr; }  // recorded at some point (appendTo has its events)

  // The events at or after from_ns as raw `[memory]` / `[OutOfMemory]`
  // instants on the process (pid) and thread (tid) that allocated, their
  // JSON "ts" relative to `base_ns` as the trace's base time will be (raw
  // events are exported as written). Call after stop().
  void appendTo(Trace& trace, int64_t from_ns, int64_t base_ns) const;
  // The first event at or after from_ns; nullopt when none.
  std::optional<int64_t> earliestNs(int64_t from_ns) const;
  size_t eventCount() const;

  class Reporter;

 private:
  std::shared_ptr<Reporter> reporter_;
  bool pushed_ = false;
};

}  // namespace fuselab
