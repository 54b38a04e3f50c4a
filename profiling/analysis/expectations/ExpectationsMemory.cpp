// peak_memory_per_forward: what the steps add, at their peak, to what was
// held before them, on the GPU (or on the CPU for a trace without GPU
// memory). A trace that recorded memory on no device cannot say.
#include "profiling/analysis/expectations/ExpectationKinds.h"
#include "profiling/analysis/memory/MemoryText.h"
#include "profiling/trace/MemoryEvents.h"

namespace fuselab::expectation_kinds {

ExpectationResult peakMemoryPerForward(const Context& c, const Expectation& e) {
  if (c.a.memory.empty() && memoryRecorded(c.trace)) {
    ExpectationResult r = decided(inRange(0.0, e.min, e.max));
    r.value = 0;
    r.measured = formatMemoryBytes(0);
    r.explanation = "The steps allocated nothing: memory was recorded and no allocation was reported (expected " +
                    rangeText(e.min, e.max) + " bytes).";
    return r;
  }
  if (c.a.memory.empty())
    return unavailable("The trace recorded no memory: capture with memory (the default) or profile with "
                       "profile_memory=True.");
  const DeviceMemory& d = c.a.memory.devices.front();  // devices first, the CPU last
  const int64_t added = d.peak_allocated_bytes - d.start_allocated_bytes;
  ExpectationResult r = decided(inRange(double(added), e.min, e.max));
  r.value = double(added);
  r.measured = formatMemoryBytes(added);
  auto bound = [](const std::optional<double>& v) { return v ? formatMemoryBytes(int64_t(*v)) : std::string("open"); };
  r.explanation = "On " + d.device + " the steps peak at " + formatMemoryBytes(d.peak_allocated_bytes) + " allocated, " +
                  formatMemoryBytes(added) + " over the " + formatMemoryBytes(d.start_allocated_bytes) +
                  " held before them (expected " + bound(e.min) + " to " + bound(e.max) + ").";
  if (d.peak_op) addEvidence(r.evidence, *d.peak_op);
  return r;
}

}  // namespace fuselab::expectation_kinds
