#include "profiling/trace/MemoryEvents.h"

#include <simdjson.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace fuselab {

namespace {

// c10::DeviceType (c10/core/DeviceType.h).
constexpr int kCpu = 0, kCuda = 1, kMkldnn = 2, kIdeep = 5, kHip = 6, kXpu = 12, kPrivateUse1 = 20;

using simdjson::ondemand::json_type;

// Counts of what was odd, by kind, for the warnings.
struct Oddities {
  std::map<std::string, uint64_t> skipped;  // "lack 'Bytes'" -> count
  uint64_t unknown_frees = 0;
  uint64_t negative_totals = 0;
};

bool readInteger(simdjson::ondemand::value v, int64_t& out) {
  json_type t;
  if (v.type().get(t) || t != json_type::number) return false;
  if (!v.get_int64().get(out)) return true;
  uint64_t u;
  if (!v.get_uint64().get(u)) {  // addresses above 2^63
    out = int64_t(u);
    return true;
  }
  double d;
  if (v.get_double().get(d) || !(d == d) || d != double(int64_t(d))) return false;
  out = int64_t(d);
  return true;
}

// One `[memory]` or `[OutOfMemory]` event's fields; false (and `why` set)
// when one it needs is missing or not a number.
struct Fields {
  int64_t pid_id = -1, tid_id = -1;  // interned token texts, -1 when unknown
  bool has_bytes = false, has_type = false;
  int64_t bytes = 0, device_type = 0, device_id = -1, addr = 0, allocated = -1, reserved = -1;
};

bool readFields(const Trace& trace, std::string_view json, Fields& f, std::string& why) {
  simdjson::padded_string copy(json);
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  if (parser.iterate(copy).get(doc) || doc.get_object().get(obj)) {
    why = "are not JSON objects";
    return false;
  }
  for (auto field : obj) {
    std::string_view key;
    simdjson::ondemand::value v;
    if (field.unescaped_key().get(key) || field.value().get(v)) {
      why = "are malformed";
      return false;
    }
    if (key == "pid" || key == "tid") {
      std::string_view token = v.raw_json_token();
      while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' || token.back() == '\t'))
        token.remove_suffix(1);
      auto id = trace.strings.find(token);
      (key == "pid" ? f.pid_id : f.tid_id) = id ? int64_t(*id) : -1;
      continue;
    }
    if (key != "args") continue;
    simdjson::ondemand::object args;
    if (v.get_object().get(args)) {
      why = "have 'args' that are not an object";
      return false;
    }
    for (auto arg : args) {
      std::string_view name;
      simdjson::ondemand::value value;
      if (arg.unescaped_key().get(name) || arg.value().get(value)) {
        why = "have malformed 'args'";
        return false;
      }
      int64_t* target = nullptr;
      bool* present = nullptr;
      if (name == "Bytes") target = &f.bytes, present = &f.has_bytes;
      else if (name == "Device Type") target = &f.device_type, present = &f.has_type;
      else if (name == "Device Id") target = &f.device_id;
      else if (name == "Addr") target = &f.addr;
      else if (name == "Total Allocated") target = &f.allocated;
      else if (name == "Total Reserved") target = &f.reserved;
      if (!target) continue;
      if (!readInteger(value, *target)) {
        why = "have a non-numeric '" + std::string(name) + "'";
        return false;
      }
      if (present) *present = true;
    }
  }
  if (!f.has_bytes) why = "lack 'Bytes'";
  else if (!f.has_type) why = "lack 'Device Type'";
  return f.has_bytes && f.has_type;
}

std::string plural(uint64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

}  // namespace

std::string memoryCounterName(std::string_view device_label) { return "Memory (" + std::string(device_label) + ")"; }

bool isMemoryCounter(const Trace& trace, const RawEvent& raw) {
  const std::string_view name = trace.strings.get(raw.name_id);
  return raw.phase == 'C' && name.starts_with("Memory (") && name.ends_with(")");
}

bool memoryRecorded(const Trace& trace) {
  for (const auto& [key, raw] : trace.meta.extra_fields)
    if (key == kMemoryRecordedField) return raw == "true";
  return false;
}

bool isCpuMemory(int t) { return t == kCpu || t == kMkldnn || t == kIdeep; }
bool isDeviceMemory(int t) { return t == kCuda || t == kHip || t == kXpu || t == kPrivateUse1; }

std::string memoryDeviceLabel(int type, int id) {
  if (isCpuMemory(type)) return "cpu";
  std::string name = type == kCuda ? "cuda" : type == kHip ? "hip" : type == kXpu ? "xpu"
                     : type == kPrivateUse1 ? "privateuse1" : "device" + std::to_string(type);
  return name + ":" + std::to_string(std::max(id, 0));
}

MemoryEvents readMemoryEvents(const Trace& trace) {
  MemoryEvents out;
  const auto memory_id = trace.strings.find(kMemoryEventName);
  const auto oom_id = trace.strings.find(kOutOfMemoryEventName);
  if (!memory_id && !oom_id) return out;

  std::unordered_map<uint64_t, uint32_t> cpu_track;  // (pid_id, tid_id) -> track
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti)
    if (trace.tracks[ti].kind == TrackKind::Cpu)
      cpu_track.emplace((uint64_t(trace.tracks[ti].pid_id) << 32) | trace.tracks[ti].tid_id, ti);
  auto trackOf = [&](const Fields& f) {
    if (f.pid_id < 0 || f.tid_id < 0) return UINT32_MAX;
    auto it = cpu_track.find((uint64_t(f.pid_id) << 32) | uint64_t(f.tid_id));
    return it == cpu_track.end() ? UINT32_MAX : it->second;
  };

  Oddities odd;
  for (const RawEvent& raw : trace.raw_events) {
    const bool is_memory = memory_id && raw.name_id == *memory_id;
    if (!is_memory && !(oom_id && raw.name_id == *oom_id)) continue;
    Fields f;
    std::string why;
    if (!readFields(trace, raw.json, f, why)) {
      ++odd.skipped[std::string(is_memory ? kMemoryEventName : kOutOfMemoryEventName) + " events " + why];
      continue;
    }
    if (f.allocated < -1 || f.reserved < -1) ++odd.negative_totals;
    const auto type = int16_t(std::clamp<int64_t>(f.device_type, INT16_MIN, INT16_MAX));
    const auto id = int16_t(std::clamp<int64_t>(f.device_id, INT16_MIN, INT16_MAX));
    if (is_memory) {
      out.events.push_back(
          MemoryEvent{raw.ts_ns, f.bytes, f.allocated, f.reserved, uint64_t(f.addr), type, id, trackOf(f)});
    } else {
      out.out_of_memory.push_back(OutOfMemoryEvent{raw.ts_ns, f.bytes, f.allocated, f.reserved, type, id, trackOf(f)});
    }
  }
  std::stable_sort(out.events.begin(), out.events.end(),
                   [](const MemoryEvent& a, const MemoryEvent& b) { return a.ts_ns < b.ts_ns; });

  // Frees of blocks the trace never saw allocated: allocated before recording
  // began (normal), or a record lost.
  std::set<std::pair<uint64_t, int>> live;  // (addr, device)
  for (const MemoryEvent& e : out.events) {
    const std::pair<uint64_t, int> key{e.addr, e.device_type * 65536 + e.device_id};
    if (e.bytes > 0) live.insert(key);
    else if (e.bytes < 0 && live.erase(key) == 0) ++odd.unknown_frees;
  }

  for (const auto& [what, n] : odd.skipped) out.warnings.push_back(plural(n, "", "") + what + " (skipped)");
  if (odd.unknown_frees)
    out.warnings.push_back(plural(odd.unknown_frees, "[memory] event frees", "[memory] events free") +
                           " memory the trace never saw allocated (allocated before recording began, or a record "
                           "was lost); their bytes still count");
  if (odd.negative_totals)
    out.warnings.push_back(plural(odd.negative_totals, "memory event has", "memory events have") +
                           " a negative 'Total Allocated' or 'Total Reserved' (kept; peaks ignore them)");
  for (const OutOfMemoryEvent& o : out.out_of_memory)
    out.warnings.push_back("out of memory on " + memoryDeviceLabel(o.device_type, o.device_id) + ": a request of " +
                           std::to_string(o.bytes) + " bytes failed with " + std::to_string(o.total_allocated) +
                           " allocated and " + std::to_string(o.total_reserved) + " reserved");
  return out;
}

}  // namespace fuselab
