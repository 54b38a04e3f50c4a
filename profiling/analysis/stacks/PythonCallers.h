// The callers of Python frames in the flame graph. torch.profiler's
// python_function events (traces made with with_stack=True) name their
// caller: their "Python parent id" is the "Python id" of the Python frame
// that called them. The flame graph nests a thread's events in the
// innermost one that contains them (CpuStack.h), which can put a frame under
// another Python frame than its caller: at equal times, inside its own
// callee. So a Python frame whose caller is open around it (contains it)
// goes directly under its caller when containment would put it under
// another Python frame, and among events of equal start and duration
// callers come before the frames they called. A frame whose caller is not
// open around it (an unknown id, a caller that ended before it or that it
// only partly overlaps, malformed args) stays where containment puts it.
// Frames without a caller (a null parent id) and every other event (ATen
// ops, annotations) nest by containment.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "profiling/analysis/stacks/CpuStack.h"
#include "profiling/trace/TraceArgs.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

// The string id of "python_function", torch.profiler's category of Python
// frames; nullopt when the trace has no such string, so no such events.
std::optional<uint32_t> pythonFunctionCategory(const Trace& trace);

// One thread's Python frames, as the flame graph walks its events in
// nesting order with a stack of the events open around the current one.
class PythonCallers {
 public:
  static constexpr uint32_t kThread = CpuStack::kThread;  // a parent position: the thread itself

  PythonCallers(const Trace& trace, uint32_t track, uint32_t python_category);

  bool isFrame(uint32_t event) const { return track_.cat_id[event] == category_; }

  // The order to nest the track's events in: by index, except that a caller
  // comes before the frames it called where their start and duration are
  // equal. Empty when that is the index order.
  const std::vector<uint32_t>& nestingOrder() const { return order_; }

  // The stack holds `open` events now: the Python frames above them were
  // dropped. Called for every event, after the stack dropped those that do
  // not contain it.
  void closeAbove(uint32_t open) {
    while (!open_.empty() && open_.back().position >= open) open_.pop_back();
  }

  struct Place {
    uint32_t parent = kThread;     // stack position of the event to nest it in
    bool caller_not_open = false;  // it names a caller that is not open: nested by time
  };
  // Where Python frame `event` goes, after closeAbove(open); it is then
  // pushed on the stack, at position `open`. Every event on the stack
  // contains it.
  Place place(uint32_t event, uint32_t open);

 private:
  struct OpenFrame {
    uint32_t position;  // in the flame graph's stack
    bool has_id;
    int64_t id;
  };
  void orderTies(uint32_t first, uint32_t last);

  const Trace& trace_;
  const Track& track_;
  uint32_t track_index_;
  uint32_t category_;
  ArgIntReader ids_{{"Python id", "Python parent id"}};
  std::vector<OpenFrame> open_;  // the open Python frames, innermost last
  std::vector<uint32_t> order_;
};

}  // namespace fuselab
