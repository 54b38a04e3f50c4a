// The kernel table (in-scope GPU ops by name) and the CPU op table (calls,
// self and total time, and the GPU time of what each op launched).
#include <algorithm>
#include <map>

#include "profiling/analysis/single/Analysis.h"

namespace fuselab {

std::vector<KernelRow> kernelTable(const Trace& trace, const AnalysisScope& scope) {
  std::map<std::pair<uint32_t, Category>, KernelRow> rows;
  for (EventRef r : scope.gpu_ops) {
    const Track& t = trace.tracks[r.track];
    int64_t dur = t.dur_ns[r.index];
    auto [it, inserted] = rows.try_emplace({t.name_id[r.index], t.category[r.index]});
    KernelRow& row = it->second;
    if (inserted) {
      row.name = std::string(trace.strings.get(t.name_id[r.index]));
      row.category = t.category[r.index];
      row.min_ns = row.max_ns = dur;
    }
    ++row.count;
    row.total_ns += dur;
    row.min_ns = std::min(row.min_ns, dur);
    row.max_ns = std::max(row.max_ns, dur);
  }
  std::vector<KernelRow> out;
  for (auto& [key, row] : rows) {
    row.mean_ns = double(row.total_ns) / double(row.count);
    out.push_back(std::move(row));
  }
  std::sort(out.begin(), out.end(), [](const KernelRow& a, const KernelRow& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  return out;
}

namespace {
bool isTableCategory(Category c) {
  return c == Category::CpuOp || c == Category::CudaRuntime || c == Category::CudaDriver;
}
}  // namespace

std::vector<CpuOpRow> cpuOpTable(const Trace& trace, const OpMemory& memory) {
  std::map<std::pair<uint32_t, Category>, CpuOpRow> rows;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.kind != TrackKind::Cpu) continue;
    std::vector<int64_t> self(t.dur_ns.begin(), t.dur_ns.end());
    std::vector<int64_t> gpu_ns(t.size(), 0);
    std::vector<uint64_t> gpu_ops(t.size(), 0);
    std::vector<uint32_t> open;  // enclosing events, outermost first
    for (uint32_t i = 0; i < t.size(); ++i) {
      const int64_t start = t.start_ns[i], end = t.end_ns(i);
      while (!open.empty() && t.end_ns(open.back()) <= start) open.pop_back();
      if (!open.empty()) {
        uint32_t parent = open.back();
        self[parent] -= std::min(end, t.end_ns(parent)) - start;
      }
      if (isLaunchCall(t.category[i]) && t.correlation[i] >= 0) {
        const LaunchLink* link = trace.launchFor(t.correlation[i]);
        if (link && link->launch == EventRef{ti, i} && !link->gpu_ops.empty()) {
          int64_t launched_ns = 0;
          for (EventRef g : link->gpu_ops) launched_ns += trace.tracks[g.track].dur_ns[g.index];
          auto credit = [&](uint32_t e) {
            gpu_ns[e] += launched_ns;
            gpu_ops[e] += link->gpu_ops.size();
          };
          credit(i);
          for (uint32_t a : open)
            if (t.start_ns[a] <= start && t.end_ns(a) >= end) credit(a);  // true ancestors only
        }
      }
      open.push_back(i);
    }
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (!isTableCategory(t.category[i])) continue;
      auto [it, inserted] = rows.try_emplace({t.name_id[i], t.category[i]});
      CpuOpRow& row = it->second;
      if (inserted) {
        row.name = std::string(trace.strings.get(t.name_id[i]));
        row.category = t.category[i];
      }
      ++row.calls;
      row.total_ns += t.dur_ns[i];
      row.self_ns += std::max<int64_t>(0, self[i]);
      row.gpu_ns += gpu_ns[i];
      row.gpu_ops += gpu_ops[i];
      if (!memory.empty()) {
        const OpMemoryBytes& m = memory.per_track[ti][i];
        row.cpu_memory_bytes += m.cpu;
        row.self_cpu_memory_bytes += m.self_cpu;
        row.device_memory_bytes += m.device;
        row.self_device_memory_bytes += m.self_device;
      }
    }
  }
  std::vector<CpuOpRow> out;
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  std::sort(out.begin(), out.end(), [](const CpuOpRow& a, const CpuOpRow& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  return out;
}

namespace {
std::string csvField(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
}  // namespace

std::string cpuOpTableCsv(const std::vector<CpuOpRow>& rows) {
  std::string out =
      "name,kind,calls,total_ns,self_ns,gpu_ns,gpu_ops,self_cpu_memory_bytes,cpu_memory_bytes,"
      "self_device_memory_bytes,device_memory_bytes\n";
  for (const CpuOpRow& r : rows) {
    out += csvField(r.name) + "," + std::string(categoryName(r.category));
    for (int64_t v : {int64_t(r.calls), r.total_ns, r.self_ns, r.gpu_ns, int64_t(r.gpu_ops), r.self_cpu_memory_bytes,
                      r.cpu_memory_bytes, r.self_device_memory_bytes, r.device_memory_bytes})
      out += "," + std::to_string(v);
    out += "\n";
  }
  return out;
}

}  // namespace fuselab
