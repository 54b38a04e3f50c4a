// The profiler's own cost on a capture: the same forwards timed with and
// without profiling. A live capture stores it in its trace as the top-level
// field "fuselabObserverEffect", so a trace file keeps it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "profiling/trace/Trace.h"

namespace fuselab {

struct ObserverEffect {
  double unprofiled_ns_per_step = 0;  // the forwards with no profiler attached
  double profiled_ns_per_step = 0;    // the recorded steps
  int unprofiled_steps = 0;           // how many forwards were timed without profiling

  // profiled / unprofiled: 1.22 means the capture ran 1.22x slower than unprofiled.
  double ratio() const { return unprofiled_ns_per_step > 0 ? profiled_ns_per_step / unprofiled_ns_per_step : 0; }
};

inline constexpr std::string_view kObserverEffectField = "fuselabObserverEffect";

// Replaces the trace's field, or adds it.
void setObserverEffect(Trace& trace, const ObserverEffect& effect);
// nullopt when the trace has none (imported from elsewhere) or it is malformed.
std::optional<ObserverEffect> observerEffectOf(const Trace& trace);
// One line for people: "this capture ran 1.22x slower than unprofiled (12.2 us vs 10.0 us per step)".
std::string describeObserverEffect(const ObserverEffect& effect);

}  // namespace fuselab
