// Per device: how many allocations and frees, where memory peaked and what was
// running then, what was held at the start and the end, and the
// out-of-memory events. The `memory` section of `analyze --json` and the
// Summary's memory line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiling/trace/MemoryEvents.h"
#include "profiling/analysis/memory/OpMemory.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct OutOfMemoryAt {
  OutOfMemoryEvent event;
  std::optional<EventRef> op;  // the innermost op in flight on its thread
};

// Allocated and reserved bytes after each memory event of one device (those
// that carry the totals), by time: what the memory lane draws.
struct MemoryCurve {
  std::vector<int64_t> ts_ns;
  std::vector<int64_t> allocated;
  std::vector<int64_t> reserved;
  // The innermost op in flight at each point, on the event's thread.
  std::vector<uint32_t> track;  // UINT32_MAX when the thread is unknown
  size_t size() const { return ts_ns.size(); }
};

struct DeviceMemory {
  std::string device;  // "cpu", "cuda:0"
  int device_type = 0;
  int device_id = -1;
  uint64_t allocations = 0;
  uint64_t frees = 0;
  int64_t allocated_bytes = 0;  // sum of the allocations
  int64_t freed_bytes = 0;      // sum of the frees, positive
  int64_t peak_allocated_bytes = 0;  // the largest 'Total Allocated'
  int64_t peak_reserved_bytes = 0;   // the largest 'Total Reserved'
  int64_t peak_ns = 0;               // when allocated first reached its peak
  std::optional<EventRef> peak_op;   // the innermost op in flight then, on the event's thread
  std::vector<EventRef> peak_stack;  // peak_op and its enclosing events, outermost first
  int64_t start_allocated_bytes = 0;  // held before the first event
  int64_t end_allocated_bytes = 0;    // held after the last
  std::vector<OutOfMemoryAt> out_of_memory;
  MemoryCurve curve;
};

struct MemorySummary {
  std::vector<DeviceMemory> devices;  // devices (cuda:0, ...) first, cpu last
  // Memory events inside no op (torch's `[memory]` row of key_averages).
  int64_t unattributed_cpu_bytes = 0;
  int64_t unattributed_device_bytes = 0;
  uint64_t unattributed_events = 0;
  std::vector<std::string> warnings;  // MemoryEvents::warnings
  bool empty() const { return devices.empty(); }
};

MemorySummary summarizeMemory(const Trace& trace, const MemoryEvents& memory, const OpMemory& op_memory);

// The events in flight on `track` at `ts_ns`, outermost first (CPU ops,
// annotations, Python frames, launch calls).
std::vector<EventRef> stackAt(const Trace& trace, uint32_t track, int64_t ts_ns);

// "ProfilerStep#1 > aten::linear > aten::mm" ("" for an empty stack).
std::string stackText(const Trace& trace, const std::vector<EventRef>& stack);

}  // namespace fuselab
