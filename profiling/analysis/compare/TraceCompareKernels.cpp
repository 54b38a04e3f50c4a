#include "profiling/analysis/compare/TraceCompareKernels.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "profiling/analysis/compare/TraceCompareSteps.h"
#include "profiling/trace/TraceArgs.h"

namespace fuselab {

namespace {

uint64_t refKey(EventRef r) { return (uint64_t(r.track) << 32) | r.index; }

// Launch call -> the innermost cpu_op containing it, by one sweep per CPU
// track with a stack of the open cpu_ops (events are sorted by start).
std::unordered_map<uint64_t, EventRef> enclosingOps(const Trace& trace) {
  std::unordered_map<uint64_t, EventRef> out;
  std::vector<uint32_t> open;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.kind != TrackKind::Cpu) continue;
    open.clear();
    for (uint32_t i = 0; i < t.size(); ++i) {
      while (!open.empty() && t.end_ns(open.back()) < t.end_ns(i)) open.pop_back();
      if (t.category[i] == Category::CpuOp)
        open.push_back(i);
      else if (isLaunchCall(t.category[i]) && !open.empty())
        out[refKey({ti, i})] = {ti, open.back()};
    }
  }
  return out;
}

std::string inputDims(const Trace& trace, EventRef op) {
  for (auto& [key, value] : argsForDisplay(trace, op))
    if (key == "Input Dims") return value;
  return {};
}

}  // namespace

std::string kernelSlotLabel(const KernelSlotKey& key) {
  std::string s = key.op.empty() ? key.name : key.op;
  if (!key.shapes.empty()) s += " " + key.shapes;
  s += " #" + std::to_string(key.ordinal + 1);
  if (!key.op.empty() && key.category != Category::Kernel) s += " (" + std::string(categoryName(key.category)) + ")";
  return s;
}

std::vector<std::vector<KernelOccurrence>> kernelOccurrences(const Trace& trace, const TraceAnalysis& a) {
  const size_t samples = a.steps.empty() ? 1 : a.steps.size();
  std::vector<std::vector<std::pair<int64_t, KernelOccurrence>>> timed(samples);
  const auto ops = enclosingOps(trace);
  std::unordered_map<uint64_t, std::pair<std::string, std::string>> op_cache;  // cpu_op -> (name, dims)
  for (EventRef g : a.scope.gpu_ops) {
    const Track& t = trace.tracks[g.track];
    const int64_t when = attributionTimeNs(trace, g);
    size_t sample = 0;
    if (!a.steps.empty()) {
      auto k = stepOrdinalAt(a.steps, when);
      if (!k) continue;
      sample = *k;
    }
    KernelOccurrence o;
    o.name = std::string(trace.name(g));
    o.dur_ns = double(t.dur_ns[g.index]);
    o.key.category = t.category[g.index];
    const LaunchLink* link = t.correlation[g.index] >= 0 ? trace.launchFor(t.correlation[g.index]) : nullptr;
    auto op = link && link->launch ? ops.find(refKey(*link->launch)) : ops.end();
    if (op != ops.end()) {
      auto [it, fresh] = op_cache.try_emplace(refKey(op->second));
      if (fresh) it->second = {std::string(trace.name(op->second)), inputDims(trace, op->second)};
      o.key.op = it->second.first;
      o.key.shapes = it->second.second;
    } else {
      o.key.name = o.name;
    }
    timed[sample].emplace_back(when, std::move(o));
  }
  std::vector<std::vector<KernelOccurrence>> out(samples);
  for (size_t s = 0; s < samples; ++s) {
    std::stable_sort(timed[s].begin(), timed[s].end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    std::map<KernelSlotKey, size_t> seen;  // key with ordinal 0 -> how many so far
    for (auto& [when, o] : timed[s]) {
      o.key.ordinal = seen[o.key]++;
      out[s].push_back(std::move(o));
    }
  }
  return out;
}

}  // namespace fuselab
