// The profiler's own cost on a capture: the same forwards timed with and
// without profiling. A live capture stores it in its trace as the top-level
// field "fuselabObserverEffect", so a trace file keeps it.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiling/trace/Trace.h"

namespace fuselab {

struct ObserverEffect {
  double unprofiled_ns_per_step = 0;  // the forwards with no profiler attached: the fastest block
  double profiled_ns_per_step = 0;    // the recorded steps
  int unprofiled_steps = 0;           // how many forwards were timed without profiling
  // The repeated timings behind those two (empty in traces written before
  // they were kept): per-step time of each block of unprofiled forwards, in
  // the order timed, and the host time of each profiled forward counted in
  // profiled_ns_per_step (the recorded steps, after a warm-up the profiler's
  // last warm-up forward too).
  std::vector<double> unprofiled_block_ns;
  std::vector<double> profiled_step_ns;
  // How many of the unprofiled blocks were timed before the profiler
  // started. They are left out of the spread: on a GPU, forwards stay slower
  // once CUPTI has run in a process (docs/capture.md), so the block before
  // is faster for a reason, not noisier.
  int unprofiled_blocks_before = 0;

  // profiled / unprofiled: 1.22 means the capture ran 1.22x slower than unprofiled.
  double ratio() const { return unprofiled_ns_per_step > 0 ? profiled_ns_per_step / unprofiled_ns_per_step : 0; }
  // How far repeated timings of the same forwards moved on this machine: the
  // slowest over the fastest, of the unprofiled blocks after the profiler and
  // of the profiled forwards (1 where fewer than two were timed).
  double unprofiledSpread() const;
  double profiledSpread() const;
  std::vector<double> unprofiledBlocksAfter() const;
  // The ratio is inside either spread: the difference is within this
  // machine's noise, and the ratio is no measure of the profiler's cost.
  // (A profiler never makes forwards faster: a ratio below 1 is noise too.)
  bool withinNoise() const { return ratio() <= std::max(unprofiledSpread(), profiledSpread()); }
};

inline constexpr std::string_view kObserverEffectField = "fuselabObserverEffect";

// Replaces the trace's field, or adds it.
void setObserverEffect(Trace& trace, const ObserverEffect& effect);
// nullopt when the trace has none (imported from elsewhere) or it is malformed.
std::optional<ObserverEffect> observerEffectOf(const Trace& trace);
// One line for people: "this capture ran 1.22x slower than unprofiled (12.2 us vs 10.0 us per step;
// unprofiled blocks 10.0-10.4 us)", or, within the noise, that the difference is this machine's noise.
std::string describeObserverEffect(const ObserverEffect& effect);

}  // namespace fuselab
