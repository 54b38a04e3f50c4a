// What a rank was doing just before it arrived at a collective: for a GPU
// collective, the GPU op of the same device that ended last before it, when
// it ended closer to the arrival than it lasted (the GPU was busy); else the
// CPU op that ended last before the collective was issued (its launch call,
// or a Gloo op's start), or the idle gap after that op when the gap is the
// longer of the two.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "profiling/analysis/collectives/CollectiveEvents.h"

namespace fuselab {

enum class ArrivalCauseKind : uint8_t { Kernel, CpuOp, Idle, Unknown };
std::string_view arrivalCauseName(ArrivalCauseKind k);  // "kernel", "cpu_op", "idle", "unknown"

struct ArrivalCause {
  ArrivalCauseKind kind = ArrivalCauseKind::Unknown;
  std::optional<EventRef> event;  // the kernel or CPU op (for idle: the op before the gap)
  std::string name;               // its name ("" when none)
  int64_t dur_ns = 0;             // its duration
  int64_t idle_ns = 0;            // from its end to the arrival (or to the launch call)
};

// "GPU busy with NAME (1.2 ms)", "CPU op NAME (...)", "idle 3.0 ms after
// NAME", "nothing captured before it"; names cut at 60 characters.
std::string describeArrivalCause(const ArrivalCause& c);

// Times are the rank's own clock. `trace` must be finalized.
class ArrivalCauses {
 public:
  explicit ArrivalCauses(const Trace& trace);
  ArrivalCause before(const CollectiveEvent& c) const;

 private:
  using ByEnd = std::vector<std::pair<int64_t, EventRef>>;
  // The event of `list` that ended last at or before t, as a cause.
  ArrivalCause lastBefore(const ByEnd& list, int64_t t, ArrivalCauseKind kind) const;

  const Trace& trace_;
  ByEnd cpu_by_end_;                // CPU work by end time
  std::map<int, ByEnd> gpu_by_end_;  // per device: GPU ops other than collectives
};

}  // namespace fuselab
