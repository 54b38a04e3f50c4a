// The allocations and frees a trace recorded: torch.profiler's `[memory]`
// instants (profile_memory=True) and its `[OutOfMemory]` ones, read from the
// trace's raw events into columns. Our own capture writes the same events
// (capture --memory), so one reader serves both.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiling/trace/Trace.h"

namespace fuselab {

inline constexpr std::string_view kMemoryEventName = "[memory]";
inline constexpr std::string_view kOutOfMemoryEventName = "[OutOfMemory]";

// The counter events ("ph": "C") our export adds per device from the memory
// events, so that Perfetto and chrome://tracing draw a memory graph:
// "Memory (cuda:0)" with args Allocated and Reserved. Derived data: export
// writes them afresh, and content comparisons leave them out.
std::string memoryCounterName(std::string_view device_label);
bool isMemoryCounter(const Trace& trace, const RawEvent& raw);

// Whether the trace says memory was recorded (our captures write the
// top-level field "fuselab_memory_recorded": true), so that a trace without
// memory events can be told from one whose steps allocated nothing.
inline constexpr std::string_view kMemoryRecordedField = "fuselab_memory_recorded";
bool memoryRecorded(const Trace& trace);

// c10::DeviceType values as the events carry them ("Device Type").
bool isCpuMemory(int device_type);     // CPU, MKLDNN, IDEEP: torch's "CPU Mem"
bool isDeviceMemory(int device_type);  // CUDA, HIP, XPU, PrivateUse1: torch's "CUDA Mem"
// "cpu", "cuda:0", "hip:1", ... ("device7:0" for a type without a name).
std::string memoryDeviceLabel(int device_type, int device_id);

struct MemoryEvent {
  int64_t ts_ns = 0;
  int64_t bytes = 0;             // > 0 an allocation, < 0 a free
  int64_t total_allocated = -1;  // after this event, on its device; -1 when absent
  int64_t total_reserved = -1;
  uint64_t addr = 0;
  int16_t device_type = 0;
  int16_t device_id = -1;
  uint32_t track = UINT32_MAX;   // the CPU thread it happened on; UINT32_MAX when none matches
};

struct OutOfMemoryEvent {
  int64_t ts_ns = 0;
  int64_t bytes = 0;  // the request that failed
  int64_t total_allocated = -1;
  int64_t total_reserved = -1;
  int16_t device_type = 0;
  int16_t device_id = -1;
  uint32_t track = UINT32_MAX;
};

struct MemoryEvents {
  std::vector<MemoryEvent> events;  // by time, then file order
  std::vector<OutOfMemoryEvent> out_of_memory;
  // What was odd, each a sentence with a count: events skipped for missing
  // or non-numeric fields, frees of addresses never allocated in the trace,
  // negative totals, out-of-memory events.
  std::vector<std::string> warnings;
  bool empty() const { return events.empty() && out_of_memory.empty(); }
};

// `trace` must be finalized. Reads nothing when the trace has no such event.
MemoryEvents readMemoryEvents(const Trace& trace);

}  // namespace fuselab
