// The events open around the current one on a CPU thread, as the flame
// graph walks the thread's events by start, longest first. An event nests
// only in one that contains it (common/CpuNesting.h, as torch nests them):
// the open events that do not are dropped. So each open event contains
// those above it.
//
// Time is counted once. An event that partly overlaps one it dropped counts
// from where that one ended (the overlap is the earlier event's), and so do
// the events inside it. An event that nests lower than the top of the stack
// (a Python frame under its caller, PythonCallers.h) takes its time out of
// the frames that held it, from the top down to where the two lines of
// parents meet.
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/analysis/stacks/FlameGraph.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

class CpuStack {
 public:
  static constexpr uint32_t kThread = UINT32_MAX;   // a parent position: the thread itself
  static constexpr uint32_t kNoFrame = UINT32_MAX;

  struct Open {
    uint32_t event;
    uint32_t parent;            // the position it nests in, or kThread
    int64_t counted_from;       // its time before this is counted in another event
    uint32_t frame = kNoFrame;  // made when something in the range needs it
  };

  explicit CpuStack(const Track& track) : track_(track) {}

  // Drops the open events that do not contain `event`. Returns when its time
  // starts to count: its start, or later where an event it partly overlaps,
  // or the one it is inside, counts the time before.
  int64_t enter(uint32_t event);
  void push(const Open& open) { open_.push_back(open); }

  uint32_t size() const { return uint32_t(open_.size()); }
  Open& operator[](uint32_t position) { return open_[position]; }

  // The top event counts `ns` that the event below it, which contains it,
  // counted as its own: that one's self time loses them. Where the top event
  // nests lower, the frames from the one below it down to the meeting point
  // lose them from their totals and the top event's parents gain them.
  // The frames of both lines must be made.
  void takeTime(FlameGraph& g, int64_t ns) const;

 private:
  const Track& track_;
  std::vector<Open> open_;
};

}  // namespace fuselab
