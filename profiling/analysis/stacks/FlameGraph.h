// Where the time went, by call stack: CPU events nested in the events that
// contain them on each thread (CpuStack.h; Python frames under their caller,
// PythonCallers.h), merged by name along the path and summed over a time
// range (the captured steps by default). Every GPU op (kernel, copy, memset)
// hangs under the stack of the launch call that started it, with itself as
// the leaf, so the same graph gives CPU time and GPU time by stack. The flame
// graph panel, `fuselab export TRACE OUT.folded` and the differential flame
// graph read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiling/trace/Trace.h"

namespace fuselab {

enum class FlameMetric : uint8_t { Cpu, Gpu };

enum class FrameKind : uint8_t {
  Root,        // the whole graph
  Thread,      // a CPU thread (`track`)
  Event,       // CPU events of one name at one path
  GpuOp,       // GPU ops of one name under one launch
  Unlaunched,  // GPU ops whose launch call the trace does not have
};

struct FlameFrame {
  FrameKind kind = FrameKind::Root;
  Category category = Category::Other;
  uint32_t name_id = 0;  // the trace's string; 0 for the root, threads and Unlaunched
  uint32_t track = 0;    // the thread, for Thread frames
  uint32_t parent = 0;   // the root is its own parent
  uint16_t depth = 0;    // the root is 0, threads 1
  uint64_t count = 0;    // events merged into it
  int64_t cpu_total_ns = 0;  // its events' time in the range, counted once (CpuStack.h)
  int64_t cpu_self_ns = 0;   // less the time of the events nested in them
  int64_t gpu_total_ns = 0;  // GPU time of the ops launched from under it
  int64_t gpu_self_ns = 0;   // GPU time of its own ops (GpuOp frames only)
  std::vector<uint32_t> children;  // by first occurrence

  int64_t total(FlameMetric m) const { return m == FlameMetric::Cpu ? cpu_total_ns : gpu_total_ns; }
  int64_t self(FlameMetric m) const { return m == FlameMetric::Cpu ? cpu_self_ns : gpu_self_ns; }
};

struct FlameGraph {
  std::vector<FlameFrame> frames;  // frames[0] is the root; parents before children
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  bool inverted = false;  // bottom-up: the root's children are where time was spent (self)
  // Python frames (python_function events) in the graph whose caller, by
  // their Python parent id, was not open around them: nested by time instead
  // (PythonCallers.h).
  uint64_t python_frames_nested_by_time = 0;

  const FlameFrame& root() const { return frames.front(); }
  int64_t total(FlameMetric m) const { return frames.empty() ? 0 : root().total(m); }
  // The frames from the root's child down to `frame`, outermost first.
  std::vector<uint32_t> path(uint32_t frame) const;
};

struct FlameGraphRange {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  // The GPU ops to count. Empty: those whose launch call (or, with none in
  // the trace, whose own start) lies in [start_ns, end_ns), as the analysis
  // scopes them (AnalysisScope.h).
  std::vector<EventRef> gpu_ops;
};

// CPU time is each event's part inside the range, less what another event
// counts (CpuStack.h: where they partly overlap, or a Python frame inside it
// goes under a caller further out); GPU time is each counted op's whole
// duration. The ProfilerStep#k annotations are one frame,
// "ProfilerStep#*", so that the steps add up. `trace` must be finalized.
FlameGraph buildFlameGraph(const Trace& trace, const FlameGraphRange& range);

// The range and GPU ops of the analysis: the captured steps, or the whole trace.
FlameGraphRange analysisFlameRange(const Trace& trace);

// Bottom-up: the frames with self time in `metric` at the top, their callers
// below; totals are of `metric` only.
FlameGraph invertFlameGraph(const FlameGraph& graph, FlameMetric metric);

// What a frame is called: the event's name, "thread 123" (or the thread's
// name), "[GPU ops without a launch]", "all".
std::string frameLabel(const Trace& trace, const FlameFrame& frame);

}  // namespace fuselab
