#include "profiling/analysis/memory/MemorySummary.h"

#include <algorithm>
#include <map>

namespace fuselab {

std::vector<EventRef> stackAt(const Trace& trace, uint32_t track, int64_t ts) {
  std::vector<EventRef> stack;
  if (track >= trace.tracks.size()) return stack;
  const Track& t = trace.tracks[track];
  // Events start in order; those starting at or before ts that have not
  // ended contain it. Scanning back from the last such start, each one that
  // also contains the one found before it is the next enclosing event; the
  // scan ends at the outermost row.
  const size_t last = size_t(std::upper_bound(t.start_ns.begin(), t.start_ns.end(), ts) - t.start_ns.begin());
  std::vector<uint32_t> inner_first;
  for (size_t k = last; k-- > 0;) {
    if (t.end_ns(k) < ts) continue;
    if (!inner_first.empty() && t.end_ns(k) < t.end_ns(inner_first.back())) continue;  // a sibling, not a parent
    inner_first.push_back(uint32_t(k));
    if (t.depth[k] == 0) break;
  }
  for (auto it = inner_first.rbegin(); it != inner_first.rend(); ++it) stack.push_back(EventRef{track, *it});
  return stack;
}

std::string stackText(const Trace& trace, const std::vector<EventRef>& stack) {
  std::string text;
  for (EventRef r : stack) text += (text.empty() ? "" : " > ") + std::string(trace.name(r));
  return text;
}

MemorySummary summarizeMemory(const Trace& trace, const MemoryEvents& memory, const OpMemory& op_memory) {
  MemorySummary out;
  out.unattributed_cpu_bytes = op_memory.unattributed_cpu;
  out.unattributed_device_bytes = op_memory.unattributed_device;
  out.unattributed_events = op_memory.unattributed_events;
  out.warnings = memory.warnings;
  std::map<std::pair<int, int>, DeviceMemory> by_device;
  std::map<std::pair<int, int>, const MemoryEvent*> peak_event;
  auto deviceFor = [&](int type, int id) -> DeviceMemory& {
    const std::pair<int, int> key{isCpuMemory(type) ? 0 : type, isCpuMemory(type) ? -1 : id};
    auto [it, inserted] = by_device.try_emplace(key);
    if (inserted) {
      it->second.device = memoryDeviceLabel(type, id);
      it->second.device_type = key.first;
      it->second.device_id = key.second;
    }
    return it->second;
  };
  for (const MemoryEvent& e : memory.events) {
    DeviceMemory& d = deviceFor(e.device_type, e.device_id);
    const bool first = d.allocations + d.frees == 0;
    if (e.bytes > 0) ++d.allocations, d.allocated_bytes += e.bytes;
    if (e.bytes < 0) ++d.frees, d.freed_bytes -= e.bytes;
    if (e.total_allocated < 0) continue;
    d.curve.ts_ns.push_back(e.ts_ns);
    d.curve.allocated.push_back(e.total_allocated);
    d.curve.reserved.push_back(std::max<int64_t>(0, e.total_reserved));
    d.curve.track.push_back(e.track);
    if (first) d.start_allocated_bytes = std::max<int64_t>(0, e.total_allocated - e.bytes);
    d.end_allocated_bytes = e.total_allocated;
    d.peak_reserved_bytes = std::max(d.peak_reserved_bytes, e.total_reserved);
    if (e.total_allocated > d.peak_allocated_bytes || first) {
      d.peak_allocated_bytes = e.total_allocated;
      d.peak_ns = e.ts_ns;
      peak_event[{d.device_type, d.device_id}] = &e;
    }
  }
  for (const OutOfMemoryEvent& o : memory.out_of_memory) {
    OutOfMemoryAt at{o, std::nullopt};
    auto stack = stackAt(trace, o.track, o.ts_ns);
    if (!stack.empty()) at.op = stack.back();
    deviceFor(o.device_type, o.device_id).out_of_memory.push_back(at);
  }
  for (auto& [key, d] : by_device) {
    if (auto it = peak_event.find(key); it != peak_event.end()) {
      d.peak_stack = stackAt(trace, it->second->track, it->second->ts_ns);
      if (!d.peak_stack.empty()) d.peak_op = d.peak_stack.back();
    }
    out.devices.push_back(std::move(d));
  }
  std::stable_partition(out.devices.begin(), out.devices.end(),
                        [](const DeviceMemory& d) { return !isCpuMemory(d.device_type); });
  return out;
}

}  // namespace fuselab
