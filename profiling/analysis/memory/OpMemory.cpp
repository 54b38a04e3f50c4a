#include "profiling/analysis/memory/OpMemory.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "profiling/analysis/common/CpuNesting.h"

namespace fuselab {

namespace {

// torch.autograd.profiler_util._filter_name.
constexpr std::array<std::string_view, 6> kFilteredNames = {
    "profiler::_record_function_enter", "profiler::_record_function_enter_new", "profiler::_record_function_exit",
    "aten::is_leaf",                    "aten::output_nr",                      "aten::_version"};

bool countedCategory(Category c) {
  return c == Category::CpuOp || c == Category::UserAnnotation || c == Category::CudaRuntime ||
         c == Category::CudaDriver;
}

// Prefix sums of the memory events' bytes by time, for interval sums.
struct BytesByTime {
  std::vector<int64_t> ts;
  std::vector<int64_t> cpu_prefix{0}, device_prefix{0};
  explicit BytesByTime(const MemoryEvents& m) {
    ts.reserve(m.events.size());
    for (const MemoryEvent& e : m.events) {
      ts.push_back(e.ts_ns);
      cpu_prefix.push_back(cpu_prefix.back() + (isCpuMemory(e.device_type) ? e.bytes : 0));
      device_prefix.push_back(device_prefix.back() + (isDeviceMemory(e.device_type) ? e.bytes : 0));
    }
  }
  // Events with start <= ts <= end, as torch's MemRecordsAcc.in_interval.
  std::pair<size_t, size_t> range(int64_t start, int64_t end) const {
    return {size_t(std::lower_bound(ts.begin(), ts.end(), start) - ts.begin()),
            size_t(std::upper_bound(ts.begin(), ts.end(), end) - ts.begin())};
  }
};

// Torch's tree on one thread: parents by (start asc, end desc), then the
// merge of same-name only children; self = total - children's totals.
void selfMemory(const Track& t, const std::vector<uint32_t>& counted, std::vector<OpMemoryBytes>& bytes) {
  const uint32_t none = UINT32_MAX;
  std::vector<uint32_t> parent(t.size(), none);
  std::vector<std::vector<uint32_t>> children(t.size());
  std::vector<uint32_t> open;
  for (uint32_t i : counted) {
    while (!open.empty() && !nestsIn(t, i, open.back())) open.pop_back();
    if (!open.empty()) {
      parent[i] = open.back();
      children[open.back()].push_back(i);
    }
    open.push_back(i);
  }
  // _remove_dup_nodes: in order, an event whose parent has its name and no
  // other child hands its children to that parent and is dropped.
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i : counted) {
      const uint32_t p = parent[i];
      if (!bytes[i].counted || p == none || t.name_id[p] != t.name_id[i] || children[p].size() != 1) continue;
      children[p] = std::move(children[i]);
      children[i].clear();
      for (uint32_t c : children[p]) parent[c] = p;
      bytes[i].counted = false;
      changed = true;
    }
  }
  for (uint32_t i : counted) {
    OpMemoryBytes& b = bytes[i];
    if (!b.counted) {
      b = OpMemoryBytes{};
      continue;
    }
    b.self_cpu = b.cpu;
    b.self_device = b.device;
    for (uint32_t c : children[i]) {
      b.self_cpu -= bytes[c].cpu;
      b.self_device -= bytes[c].device;
    }
  }
}

}  // namespace

bool countsForOpMemory(const Trace& trace, EventRef e) {
  const Track& t = trace.tracks[e.track];
  if (t.kind != TrackKind::Cpu || !countedCategory(t.category[e.index])) return false;
  const std::string_view name = trace.strings.get(t.name_id[e.index]);
  return std::find(kFilteredNames.begin(), kFilteredNames.end(), name) == kFilteredNames.end();
}

OpMemory opMemory(const Trace& trace, const MemoryEvents& memory) {
  OpMemory out;
  if (memory.events.empty()) return out;
  const BytesByTime by_time(memory);
  // +1 / -1 at each counted event's first and past-last memory event: what
  // is inside no event is left at zero cover.
  std::vector<int32_t> cover(memory.events.size() + 1, 0);
  out.per_track.resize(trace.tracks.size());
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.kind != TrackKind::Cpu) continue;
    std::vector<OpMemoryBytes>& bytes = out.per_track[ti];
    bytes.resize(t.size());
    std::vector<uint32_t> counted;
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (!countsForOpMemory(trace, {ti, i})) continue;
      counted.push_back(i);
      auto [first, last] = by_time.range(t.start_ns[i], t.end_ns(i));
      bytes[i].cpu = by_time.cpu_prefix[last] - by_time.cpu_prefix[first];
      bytes[i].device = by_time.device_prefix[last] - by_time.device_prefix[first];
      bytes[i].counted = true;
      ++cover[first];
      --cover[last];
    }
    selfMemory(t, counted, bytes);
  }
  int32_t inside = 0;
  for (size_t k = 0; k < memory.events.size(); ++k) {
    inside += cover[k];
    if (inside > 0) continue;
    const MemoryEvent& e = memory.events[k];
    out.unattributed_cpu += isCpuMemory(e.device_type) ? e.bytes : 0;
    out.unattributed_device += isDeviceMemory(e.device_type) ? e.bytes : 0;
    ++out.unattributed_events;
  }
  return out;
}

}  // namespace fuselab
