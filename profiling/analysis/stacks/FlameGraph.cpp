#include "profiling/analysis/stacks/FlameGraph.h"

#include <algorithm>
#include <unordered_map>

#include "profiling/analysis/common/NameFlags.h"
#include "profiling/analysis/single/AnalysisScope.h"
#include "profiling/analysis/single/AnalysisSteps.h"
#include "profiling/analysis/stacks/CpuStack.h"
#include "profiling/analysis/stacks/PythonCallers.h"

namespace fuselab {

namespace {

uint64_t refKey(EventRef r) { return (uint64_t(r.track) << 32) | r.index; }

// Frames by (parent, kind, name): the children of each path.
class FrameIndex {
 public:
  explicit FrameIndex(FlameGraph& g) : g_(g) {}
  uint32_t child(uint32_t parent, FrameKind kind, uint32_t name_id, Category category, uint32_t track = 0) {
    const Key key{parent, kind == FrameKind::Thread ? track : name_id, kind};
    auto [it, inserted] = index_.try_emplace(key, uint32_t(g_.frames.size()));
    if (!inserted) return it->second;
    FlameFrame f;
    f.kind = kind;
    f.category = category;
    f.name_id = kind == FrameKind::Thread ? 0 : name_id;
    f.track = track;
    f.parent = parent;
    f.depth = uint16_t(g_.frames[parent].depth + 1);
    g_.frames.push_back(std::move(f));
    g_.frames[parent].children.push_back(it->second);
    return it->second;
  }

 private:
  struct Key {
    uint32_t parent, name;
    FrameKind kind;
    bool operator==(const Key&) const = default;
  };
  struct Hash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()((uint64_t(k.parent) << 32 | k.name) * 31 + uint64_t(k.kind));
    }
  };
  FlameGraph& g_;
  std::unordered_map<Key, uint32_t, Hash> index_;
};

int64_t overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1) { return std::max<int64_t>(0, std::min(a1, b1) - std::max(a0, b0)); }

FlameGraph newGraph(int64_t start, int64_t end) {
  FlameGraph g;
  g.start_ns = start;
  g.end_ns = end;
  g.frames.emplace_back();
  return g;
}

// Adds `ns` of GPU time to `frame` and every frame above it.
void addGpuUp(FlameGraph& g, uint32_t frame, int64_t ns) {
  for (uint32_t f = frame;; f = g.frames[f].parent) {
    g.frames[f].gpu_total_ns += ns;
    if (f == 0) break;
  }
}

}  // namespace

std::vector<uint32_t> FlameGraph::path(uint32_t frame) const {
  std::vector<uint32_t> out;
  for (uint32_t f = frame; f != 0; f = frames[f].parent) out.push_back(f);
  std::reverse(out.begin(), out.end());
  return out;
}

FlameGraphRange analysisFlameRange(const Trace& trace) {
  AnalysisScope scope = findAnalysisScope(trace);
  return FlameGraphRange{scope.start_ns, scope.end_ns, std::move(scope.gpu_ops)};
}

FlameGraph buildFlameGraph(const Trace& trace, const FlameGraphRange& range) {
  const int64_t start = range.start_ns, end = range.end_ns;
  FlameGraph g = newGraph(start, end);
  FrameIndex index(g);

  // The GPU ops to count, by their launch call; those without one apart.
  std::vector<EventRef> gpu_ops = range.gpu_ops;
  if (gpu_ops.empty()) {
    for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
      const Track& t = trace.tracks[ti];
      if (t.kind != TrackKind::Gpu) continue;
      for (uint32_t i = 0; i < t.size(); ++i) {
        if (!isGpuWork(t.category[i])) continue;
        const int64_t at = attributionTimeNs(trace, {ti, i});
        if (at >= start && at < end) gpu_ops.push_back({ti, i});
      }
    }
  }
  std::unordered_map<uint64_t, std::vector<EventRef>> launched;  // launch call -> its counted GPU ops
  std::vector<EventRef> unlaunched;
  for (EventRef op : gpu_ops) {
    const Track& t = trace.tracks[op.track];
    const LaunchLink* link = t.correlation[op.index] >= 0 ? trace.launchFor(t.correlation[op.index]) : nullptr;
    if (link && link->launch && trace.tracks[link->launch->track].kind == TrackKind::Cpu)
      launched[refKey(*link->launch)].push_back(op);
    else
      unlaunched.push_back(op);
  }
  auto addGpuOps = [&](uint32_t parent, const std::vector<EventRef>& ops) {
    for (EventRef op : ops) {
      const Track& t = trace.tracks[op.track];
      const uint32_t f = index.child(parent, FrameKind::GpuOp, t.name_id[op.index], t.category[op.index]);
      ++g.frames[f].count;
      g.frames[f].gpu_self_ns += t.dur_ns[op.index];
      addGpuUp(g, f, t.dur_ns[op.index]);
    }
  };

  // Steps merge into one frame (the first step's name, labelled
  // "ProfilerStep#*"), so that the graph sums the steps.
  const std::vector<uint8_t> is_step =
      nameFlags(trace.strings, [](std::string_view n) { return profilerStepIndex(n).has_value(); });
  uint32_t step_name = 0;
  for (uint32_t id = 0; id < is_step.size() && !step_name; ++id)
    if (is_step[id]) step_name = id;
  auto frameName = [&](uint32_t name_id) { return is_step[name_id] ? step_name : name_id; };

  constexpr uint32_t kThread = CpuStack::kThread, kNone = CpuStack::kNoFrame;
  const std::optional<uint32_t> python_category = pythonFunctionCategory(trace);
  std::vector<uint32_t> unframed;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.kind != TrackKind::Cpu) continue;
    std::optional<PythonCallers> python;
    if (python_category) python.emplace(trace, ti, *python_category);
    const std::vector<uint32_t> no_order;
    const std::vector<uint32_t>& order = python ? python->nestingOrder() : no_order;
    uint32_t thread = kNone;
    CpuStack open(t);
    // The frame of open[k], made (with those it nests in) when first needed.
    auto frameOf = [&](uint32_t k) {
      unframed.clear();
      for (uint32_t j = k; j != kThread && open[j].frame == kNone; j = open[j].parent) unframed.push_back(j);
      for (auto j = unframed.rbegin(); j != unframed.rend(); ++j) {
        uint32_t parent = open[*j].parent == kThread ? thread : open[open[*j].parent].frame;
        if (parent == kNone) parent = thread = index.child(0, FrameKind::Thread, 0, Category::Other, ti);
        const uint32_t e = open[*j].event;
        open[*j].frame = index.child(parent, FrameKind::Event, frameName(t.name_id[e]), t.category[e]);
        ++g.frames[open[*j].frame].count;
      }
      return open[k].frame;
    };
    for (uint32_t k = 0; k < t.size(); ++k) {
      const uint32_t i = order.empty() ? k : order[k];
      const int64_t s = t.start_ns[i], e = t.end_ns(i);
      if (s >= end) break;
      const int64_t counted_from = open.enter(i);
      const uint32_t depth = open.size();
      PythonCallers::Place place{depth == 0 ? kThread : depth - 1, false};  // in the innermost that contains it
      if (python) {
        python->closeAbove(depth);
        if (python->isFrame(i)) place = python->place(i, depth);
      }
      open.push({i, place.parent, counted_from});
      const auto gpu = launched.find(refKey({ti, i}));
      // Outside the range and no GPU op: no frame. One whose time in the
      // range another event counts keeps its frame, for its count.
      if (overlap(s, e, start, end) == 0 && gpu == launched.end()) continue;
      g.python_frames_nested_by_time += place.caller_not_open;
      const uint32_t f = frameOf(depth);
      const int64_t inside = overlap(counted_from, e, start, end);
      g.frames[f].cpu_total_ns += inside;
      g.frames[f].cpu_self_ns += inside;
      if (inside > 0) {
        if (depth == 0) g.frames[thread].cpu_total_ns += inside;  // a thread's total is its frames' self time
        else open.takeTime(g, inside);
      }
      if (gpu != launched.end()) addGpuOps(f, gpu->second);
    }
  }
  if (!unlaunched.empty()) addGpuOps(index.child(0, FrameKind::Unlaunched, 0, Category::Other), unlaunched);
  for (uint32_t c : g.frames[0].children) g.frames[0].cpu_total_ns += g.frames[c].cpu_total_ns;
  return g;
}

FlameGraph invertFlameGraph(const FlameGraph& graph, FlameMetric metric) {
  FlameGraph out = newGraph(graph.start_ns, graph.end_ns);
  out.inverted = true;
  out.python_frames_nested_by_time = graph.python_frames_nested_by_time;
  FrameIndex index(out);
  for (uint32_t f = 1; f < graph.frames.size(); ++f) {
    const FlameFrame& leaf = graph.frames[f];
    const int64_t self = leaf.self(metric);
    if (self <= 0) continue;
    uint32_t at = 0;
    for (uint32_t up = f; up != 0; up = graph.frames[up].parent) {
      const FlameFrame& src = graph.frames[up];
      at = index.child(at, src.kind, src.name_id, src.category, src.track);
      FlameFrame& dst = out.frames[at];
      (metric == FlameMetric::Cpu ? dst.cpu_total_ns : dst.gpu_total_ns) += self;
      if (up == f) {
        dst.count += leaf.count;
        (metric == FlameMetric::Cpu ? dst.cpu_self_ns : dst.gpu_self_ns) += self;
      }
    }
    (metric == FlameMetric::Cpu ? out.frames[0].cpu_total_ns : out.frames[0].gpu_total_ns) += self;
  }
  return out;
}

std::string frameLabel(const Trace& trace, const FlameFrame& frame) {
  switch (frame.kind) {
    case FrameKind::Root: return "all";
    case FrameKind::Unlaunched: return "[GPU ops without a launch]";
    case FrameKind::Thread: {
      const Track& t = trace.tracks[frame.track];
      if (t.thread_name_id) return std::string(trace.strings.get(t.thread_name_id));
      return "thread " + std::string(trace.strings.get(t.tid_id));
    }
    default: {
      const std::string_view name = trace.strings.get(frame.name_id);
      return profilerStepIndex(name) ? "ProfilerStep#*" : std::string(name);
    }
  }
}

}  // namespace fuselab
