#include "app/report/MemoryReport.h"

#include "app/report/EventJson.h"
#include "profiling/analysis/memory/MemoryText.h"
#include "profiling/trace/DurationText.h"

namespace fuselab {

nlohmann::ordered_json memoryJson(const Trace& trace, const MemorySummary& memory, int64_t origin) {
  using json = nlohmann::ordered_json;
  auto opJson = [&](const std::optional<EventRef>& op) -> json { return op ? eventJson(trace, *op, origin) : json(nullptr); };
  json devices = json::array();
  for (const DeviceMemory& d : memory.devices) {
    json stack = json::array();
    for (EventRef r : d.peak_stack) stack.push_back(std::string(trace.name(r)));
    json oom = json::array();
    for (const OutOfMemoryAt& o : d.out_of_memory)
      oom.push_back({{"ts_ns", o.event.ts_ns - origin},
                     {"bytes", o.event.bytes},
                     {"total_allocated_bytes", o.event.total_allocated},
                     {"total_reserved_bytes", o.event.total_reserved},
                     {"op", opJson(o.op)}});
    devices.push_back({{"device", d.device},
                       {"allocations", d.allocations},
                       {"frees", d.frees},
                       {"allocated_bytes", d.allocated_bytes},
                       {"freed_bytes", d.freed_bytes},
                       {"peak_allocated_bytes", d.peak_allocated_bytes},
                       {"peak_reserved_bytes", d.peak_reserved_bytes},
                       {"peak_ns", d.peak_ns - origin},
                       {"peak_op", opJson(d.peak_op)},
                       {"peak_stack", std::move(stack)},
                       {"start_allocated_bytes", d.start_allocated_bytes},
                       {"end_allocated_bytes", d.end_allocated_bytes},
                       {"out_of_memory", std::move(oom)}});
  }
  return {{"devices", std::move(devices)},
          {"unattributed", {{"events", memory.unattributed_events},
                            {"cpu_bytes", memory.unattributed_cpu_bytes},
                            {"device_bytes", memory.unattributed_device_bytes}}},
          {"warnings", memory.warnings}};
}

void writeMemoryText(std::ostream& out, const Trace& trace, const MemorySummary& memory) {
  if (memory.empty()) return;
  const int64_t origin = trace.beginNs();
  out << "\nMemory:\n";
  for (const DeviceMemory& d : memory.devices) {
    out << "  " << d.device << ": peak " << formatMemoryBytes(d.peak_allocated_bytes) << " allocated ("
        << formatMemoryBytes(d.peak_reserved_bytes) << " reserved) at " << formatDuration(d.peak_ns - origin);
    if (d.peak_op) out << " in " << stackText(trace, d.peak_stack);
    out << "; " << d.allocations << " allocations, " << d.frees << " frees; held "
        << formatMemoryBytes(d.start_allocated_bytes) << " at the start, " << formatMemoryBytes(d.end_allocated_bytes)
        << " at the end\n";
    for (const OutOfMemoryAt& o : d.out_of_memory)
      out << "    out of memory at " << formatDuration(o.event.ts_ns - origin) << ": " << formatMemoryBytes(o.event.bytes)
          << " requested" << (o.op ? " in " + std::string(trace.name(*o.op)) : std::string()) << "\n";
  }
  for (const std::string& w : memory.warnings) out << "  note: " << w << "\n";
}

}  // namespace fuselab
