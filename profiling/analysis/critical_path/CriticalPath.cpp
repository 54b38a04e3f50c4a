#include "profiling/analysis/critical_path/CriticalPath.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "profiling/analysis/single/AnalysisSteps.h"
#include "profiling/analysis/critical_path/CriticalPathGraph.h"
#include "profiling/analysis/critical_path/PathTraces.h"
#include "profiling/trace/ParallelFor.h"

namespace fuselab {

std::string_view pathKindName(PathKind k) {
  switch (k) {
    case PathKind::Cpu: return "cpu";
    case PathKind::Launch: return "launch";
    case PathKind::Gpu: return "gpu";
    case PathKind::Wait: return "wait";
    case PathKind::Idle: return "idle";
    case PathKind::Collective: return "collective";
  }
  return "cpu";
}

double WhatIf::change() const {
  return steps_ns_before > 0 ? static_cast<double>(steps_ns_after) / static_cast<double>(steps_ns_before) - 1 : 0;
}

namespace {

// Step k: every rank's annotation k (one in a single trace). Its work ends
// when the last of them ends or when the last GPU op launched inside them
// ends, whichever is later; it starts where the step before it ended (the
// first step: at its annotations' start). So a step whose GPU runs behind
// the CPU is measured by its GPU work, and the steps tile the run.
struct StepGroup {
  std::string name;
  uint32_t first_start = 0;  // the earliest annotation start
  uint32_t end_node = 0;
  bool whole_trace = false;  // no steps: from begin_ns to the last end
  int64_t begin_ns = 0;
};

// The GPU ops each annotation launched: the latest-ending one's end node
// extends its group's end. Each trace's launches are read on a core of
// their own, their latest ends then taken together.
void extendByGpuWork(const PathTraces& traces, const CriticalPathGraph& g, const std::vector<EventRef>& annotations,
                     const std::vector<size_t>& group_of, std::vector<StepGroup>& groups) {
  std::vector<std::vector<size_t>> on_track(traces.trackCount());  // annotations by start, per track
  for (size_t i = 0; i < annotations.size(); ++i) on_track[annotations[i].track].push_back(i);
  std::vector<std::vector<uint32_t>> end_of(traces.sourceCount());  // per source, per group: its latest end node
  parallelFor(traces.sourceCount(), [&](size_t src) {
    std::vector<uint32_t>& ends = end_of[src];
    for (const StepGroup& group : groups) ends.push_back(group.end_node);
    const uint32_t first = traces.firstTrack(src);
    for (const LaunchLink& link : traces.source(src).launches()) {
      if (!link.launch || link.gpu_ops.empty()) continue;
      const uint32_t track = first + link.launch->track;
      const Track& t = traces.track(track);
      const int64_t at = t.start_ns[link.launch->index];
      const auto& candidates = on_track[track];
      auto it = std::upper_bound(candidates.begin(), candidates.end(), at, [&](int64_t v, size_t i) {
        return v < t.start_ns[annotations[i].index];
      });
      if (it == candidates.begin()) continue;
      const size_t ann = *std::prev(it);
      if (at > t.end_ns(annotations[ann].index)) continue;
      uint32_t& end = ends[group_of[ann]];
      for (EventRef op : link.gpu_ops) {
        uint32_t s = 0, e = 0;
        if (g.eventNodes({first + op.track, op.index}, s, e) && g.observedNs(e) > g.observedNs(end)) end = e;
      }
    }
  });
  for (const std::vector<uint32_t>& ends : end_of)
    for (size_t k = 0; k < groups.size(); ++k)
      if (g.observedNs(ends[k]) > g.observedNs(groups[k].end_node)) groups[k].end_node = ends[k];
}

// The ProfilerStep#k annotations of every trace, by start on the aligned clock.
std::vector<EventRef> profilerSteps(const PathTraces& traces, const CriticalPathGraph& g) {
  if (traces.sourceCount() == 1) return findProfilerSteps(traces.source(0));
  std::vector<std::pair<int64_t, EventRef>> by_start;
  for (size_t src = 0; src < traces.sourceCount(); ++src)
    for (EventRef r : findProfilerSteps(traces.source(src))) {
      const EventRef e{traces.firstTrack(src) + r.track, r.index};
      uint32_t s = 0, end = 0;
      by_start.emplace_back(g.eventNodes(e, s, end) ? g.observedNs(s) : 0, e);
    }
  std::sort(by_start.begin(), by_start.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first
                              : std::pair{a.second.track, a.second.index} < std::pair{b.second.track, b.second.index};
  });
  std::vector<EventRef> out;
  for (const auto& [start, e] : by_start) out.push_back(e);
  return out;
}

std::vector<StepGroup> stepGroups(const PathTraces& traces, const CriticalPathGraph& g) {
  // Keyed by (k, how many annotations k came before on the same rank): a
  // trace that repeats a step number has a step per repetition.
  std::map<std::pair<int, int>, size_t> index_of;
  std::map<std::pair<int, int>, int> seen;  // (rank, k) -> annotations so far
  std::vector<StepGroup> groups;
  std::vector<EventRef> annotations;
  std::vector<size_t> group_of;
  for (EventRef r : profilerSteps(traces, g)) {
    uint32_t s = 0, e = 0;
    if (!g.eventNodes(r, s, e)) continue;
    const std::string_view name = traces.name(r);
    const int k = *profilerStepIndex(name);
    auto [it, added] = index_of.try_emplace({k, seen[{traces.rank(r.track), k}]++}, groups.size());
    if (added) groups.push_back({std::string(name), s, e, false, 0});
    StepGroup& group = groups[it->second];
    if (g.observedNs(e) > g.observedNs(group.end_node)) group.end_node = e;
    if (g.observedNs(s) < g.observedNs(group.first_start)) group.first_start = s;
    annotations.push_back(r);
    group_of.push_back(it->second);
  }
  extendByGpuWork(traces, g, annotations, group_of, groups);
  std::sort(groups.begin(), groups.end(), [&](const StepGroup& a, const StepGroup& b) {
    return g.observedNs(a.first_start) < g.observedNs(b.first_start);
  });
  if (groups.empty() && g.nodeCount() > 0) {
    StepGroup whole{"whole trace", 0, 0, true, traces.beginNs()};
    for (uint32_t v = 1; v < g.nodeCount(); v += 2)
      if (g.observedNs(v) > g.observedNs(whole.end_node)) whole.end_node = v;
    groups.push_back(std::move(whole));
  }
  return groups;
}

// Each node's time on a schedule (a what-if's), or as observed (none).
// Scheduled with nothing halved, the graph gives every observed time (its
// lags are the observed ones where they bind, and no more elsewhere): the
// steps' own paths read the observed times.
struct NodeTimes {
  const CriticalPathGraph& g;
  const std::vector<int64_t>* scheduled = nullptr;
  int64_t operator[](uint32_t v) const { return scheduled ? (*scheduled)[v] : g.observedNs(v); }
};

// Where step i starts on the schedule `times`.
int64_t groupStart(const std::vector<StepGroup>& groups, size_t i, const NodeTimes& times) {
  const StepGroup& group = groups[i];
  if (group.whole_trace) return group.begin_ns;
  if (i == 0) return times[group.first_start];
  return std::min(times[groups[i - 1].end_node], times[group.end_node]);
}

PathSegment segmentOf(const PathTraces& traces, const CriticalPathGraph& g, const PathEdge& e) {
  PathSegment seg;
  uint32_t track = e.track;
  int64_t event = e.event;
  seg.kind = e.kind;
  if (e.activity >= 0) {
    const PathActivity& a = g.activities()[static_cast<size_t>(e.activity)];
    seg.kind = a.kind;
    track = a.track;
    event = a.event;
  }
  seg.track = track;
  seg.rank = traces.rank(track);
  if (event >= 0) seg.event = EventRef{track, static_cast<uint32_t>(event)};
  return seg;
}

// Walks back from `node` along the dependency that set each observed time, down to `start_ns`.
std::vector<PathSegment> walkBack(const PathTraces& traces, const CriticalPathGraph& g, uint32_t node,
                                  int64_t start_ns) {
  const NodeTimes t{g};
  std::vector<PathSegment> segs;
  while (t[node] > start_ns) {
    PathEdge best;
    bool any = false;
    int64_t best_end = std::numeric_limits<int64_t>::min();
    g.forEachPredecessor(node, [&](const PathEdge& edge) {
      const int64_t w = edge.activity >= 0 ? g.activities()[static_cast<size_t>(edge.activity)].own_ns : edge.lag_ns;
      const int64_t end = t[edge.from] + w;
      if (!any || end > best_end || (end == best_end && edge.binding && !best.binding)) best = edge, best_end = end;
      any = true;
    });
    if (!any) {  // nothing before this on its thread: the step waited for nothing recorded
      const PathActivity& a = g.activities()[CriticalPathGraph::activityOf(node)];
      segs.push_back({PathKind::Idle, traces.rank(a.track), a.track, std::nullopt, start_ns, t[node] - start_ns});
      break;
    }
    const int64_t from_ns = std::max(t[best.from], start_ns);
    if (t[node] > from_ns) {
      PathSegment seg = segmentOf(traces, g, best);
      seg.start_ns = from_ns;
      seg.dur_ns = t[node] - from_ns;
      segs.push_back(seg);
    }
    node = best.from;
  }
  std::reverse(segs.begin(), segs.end());
  // One segment per stretch of one event (an op's slices around its children
  // are not merged), merged in place and kept at their exact size: a long
  // trace's steps hold a segment for most of its slices.
  size_t kept = 0;
  for (const PathSegment& s : segs) {
    if (kept > 0) {
      PathSegment& m = segs[kept - 1];
      if (m.kind == s.kind && m.track == s.track && m.event == s.event && m.start_ns + m.dur_ns == s.start_ns) {
        m.dur_ns += s.dur_ns;
        continue;
      }
    }
    segs[kept++] = s;
  }
  segs.resize(kept);
  segs.shrink_to_fit();
  return segs;
}

void addTotals(StepPath& p) {
  std::map<int, int64_t> by_rank;
  for (const PathSegment& s : p.segments) {
    p.by_kind[static_cast<size_t>(s.kind)] += s.dur_ns;
    by_rank[s.rank] += s.dur_ns;
  }
  p.by_rank.assign(by_rank.begin(), by_rank.end());
}

// What to try halving: the ops with the most time on the paths. An
// annotation's own time is code outside recorded ops (e.g. a model's Python);
// the steps' own annotations (ProfilerStep#k, a name per step) count as one
// op, kStepsOwnTime.
constexpr uint32_t kStepsOwnTime = std::numeric_limits<uint32_t>::max();
constexpr std::string_view kStepsOwnTimeName = "ProfilerStep#* own time";

struct OpKey {
  int rank;
  PathKind kind;
  uint32_t source;   // PathTraces' (one per rank)
  uint32_t name_id;  // in that source's strings, or kStepsOwnTime
  auto operator<=>(const OpKey&) const = default;
};

// Each name's key in OpKey, per source: the steps' annotations share one.
std::vector<std::vector<uint32_t>> opNameKeys(const PathTraces& traces) {
  std::vector<std::vector<uint32_t>> keys(traces.sourceCount());
  parallelFor(keys.size(), [&](size_t src) {
    const StringTable& strings = traces.source(src).strings;
    keys[src].resize(strings.size());
    for (uint32_t id = 0; id < keys[src].size(); ++id)
      keys[src][id] = profilerStepIndex(strings.get(id)) ? kStepsOwnTime : id;
  });
  return keys;
}

OpKey opKeyOf(const PathTraces& traces, const std::vector<std::vector<uint32_t>>& name_keys, PathKind kind,
              EventRef e) {
  const uint32_t src = static_cast<uint32_t>(traces.sourceIndex(e.track));
  return {traces.rank(e.track), kind, src, name_keys[src][traces.track(e.track).name_id[e.index]]};
}

std::string opName(const PathTraces& traces, const OpKey& key) {
  return std::string(key.name_id == kStepsOwnTime ? kStepsOwnTimeName : traces.source(key.source).strings.get(key.name_id));
}

// Ties go by rank, kind and name: the same whatever the strings' ids (a
// merged trace's or its ranks').
std::vector<std::pair<OpKey, int64_t>> longestOps(const PathTraces& traces,
                                                  const std::vector<std::vector<uint32_t>>& name_keys,
                                                  const std::vector<StepPath>& steps, size_t n) {
  std::map<OpKey, int64_t> on_path;
  for (const StepPath& p : steps)
    for (const PathSegment& s : p.segments) {
      if (!s.event || (s.kind != PathKind::Cpu && s.kind != PathKind::Launch && s.kind != PathKind::Gpu &&
                       s.kind != PathKind::Collective))
        continue;
      on_path[opKeyOf(traces, name_keys, s.kind, *s.event)] += s.dur_ns;
    }
  std::vector<std::pair<OpKey, int64_t>> ops(on_path.begin(), on_path.end());
  std::sort(ops.begin(), ops.end(), [&](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return std::tuple{a.first.rank, a.first.kind, opName(traces, a.first)} <
           std::tuple{b.first.rank, b.first.kind, opName(traces, b.first)};
  });
  if (ops.size() > n) ops.resize(n);
  return ops;
}

int64_t stepsTotal(const std::vector<StepGroup>& groups, const NodeTimes& t) {
  int64_t total = 0;
  for (size_t i = 0; i < groups.size(); ++i) total += t[groups[i].end_node] - groupStart(groups, i, t);
  return total;
}

}  // namespace

CriticalPathAnalysis analyzeCriticalPath(const Trace& trace, const std::vector<CollectiveDependency>& collectives,
                                         const CriticalPathOptions& options) {
  return analyzeCriticalPath(trace, CriticalPathGraph(trace, collectives), options);
}

CriticalPathAnalysis analyzeCriticalPath(const Trace& trace, const CriticalPathGraph& g,
                                         const CriticalPathOptions& options) {
  return analyzeCriticalPath(PathTraces(trace), g, options);
}

CriticalPathAnalysis analyzeCriticalPath(const PathTraces& traces, const CriticalPathGraph& g,
                                         const CriticalPathOptions& options) {
  CriticalPathAnalysis out;
  if (g.nodeCount() == 0) return out;
  const NodeTimes t{g};
  const std::vector<StepGroup> groups = stepGroups(traces, g);
  // The steps' walks read the schedule only: they run side by side.
  out.steps.resize(groups.size());
  parallelFor(groups.size(), [&](size_t i) {
    const StepGroup& group = groups[i];
    StepPath& p = out.steps[i];
    p.name = group.name;
    p.start_ns = groupStart(groups, i, t);
    p.wall_ns = t[group.end_node] - p.start_ns;
    p.segments = walkBack(traces, g, group.end_node, p.start_ns);
    addTotals(p);
  });

  // Each what-if schedules the whole graph again.
  const int64_t before = stepsTotal(groups, t);
  const std::vector<std::vector<uint32_t>> name_keys = opNameKeys(traces);
  // Up to 255 ops: each activity is marked with the op it is the time of
  // (1 + its place in `ops`; 0: none), in one pass for all of them.
  const auto ops = longestOps(traces, name_keys, out.steps, std::min<size_t>(options.what_if_ops, 255));
  std::vector<uint8_t> op_of(g.activities().size(), 0);
  constexpr size_t kChunk = 1 << 13;
  parallelFor((op_of.size() + kChunk - 1) / kChunk, [&](size_t c) {
    for (size_t a = c * kChunk; a < std::min(op_of.size(), (c + 1) * kChunk); ++a) {
      const PathActivity& act = g.activities()[a];
      if (act.event < 0) continue;
      const OpKey key = opKeyOf(traces, name_keys, act.kind, {act.track, static_cast<uint32_t>(act.event)});
      for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i].first == key) op_of[a] = static_cast<uint8_t>(i + 1);
    }
  });
  // One after another into one schedule: a schedule holds 8 bytes per node
  // (as much as half the activities), and one per op side by side on many
  // cores was the largest part of `analyze`'s peak memory beyond the trace;
  // two side by side still put a 1M-event trace's peak near 1.3x its file.
  // A schedule takes ~12 ms at 1M events.
  out.what_if.reserve(ops.size());
  std::vector<int64_t> faster;
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto& [key, ns] = ops[i];
    g.schedule(op_of, faster, static_cast<uint8_t>(i + 1));
    out.what_if.push_back(
        {opName(traces, key), key.kind, key.rank, ns, before, stepsTotal(groups, NodeTimes{g, &faster})});
  }
  return out;
}

}  // namespace fuselab
