#include "profiling/analysis/critical_path/CriticalPathGraph.h"

#include <algorithm>
#include <limits>
#include <map>

#include "profiling/analysis/single/AnalysisGaps.h"
#include "profiling/analysis/collectives/CollectiveKind.h"
#include "profiling/analysis/common/NameFlags.h"
#include "profiling/trace/ParallelFor.h"

namespace fuselab {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
// A GPU op that starts this soon after an op on another stream of its device
// ended, later than its own stream and launch allow, waited for that op (an
// event recorded there, waited on here).
constexpr int64_t kCrossStreamWindowNs = 5'000;

struct Candidate {
  uint32_t from = 0;
  int64_t time = 0;     // observed time of `from`
  int64_t min_lag = 0;  // the least the dependency takes
  PathKind kind = PathKind::Idle;
  uint32_t track = 0;
  int32_t event = -1;
};

}  // namespace

CriticalPathGraph::CriticalPathGraph(const Trace& trace, const std::vector<CollectiveDependency>& collectives)
    : CriticalPathGraph(trace) {
  addCollectives(collectives);
  finish();
}

CriticalPathGraph CriticalPathGraph::rankPart(const Trace& rank_trace) {
  CriticalPathGraph part(rank_trace);
  part.finish();  // its own order: join() takes the parts' orders in turn
  return part;
}

CriticalPathGraph::CriticalPathGraph(const Trace& trace) {
  if (trace.tracks.size() >= kMaxPathTracks) return;  // no path (no trace has that many threads and streams)
  const std::vector<uint8_t> is_sync = nameFlags(trace.strings, isSynchronizeCall);
  const std::vector<uint8_t> is_cpu_collective = nameFlags(trace.strings, isCpuCollectiveName);
  std::vector<TrackActivities> per_track(trace.tracks.size());
  // The track with the most events is built where the graph keeps it, with
  // room after it for the others: only they are copied.
  size_t largest = 0, bound = 0;
  for (size_t ti = 0; ti < trace.tracks.size(); ++ti) {
    bound += 2 * size_t(trace.tracks[ti].size()) + 1;
    if (trace.tracks[ti].size() > trace.tracks[largest].size()) largest = ti;
  }
  if (!per_track.empty()) per_track[largest].activities.reserve(bound);  // pages never written stay free
  parallelFor(trace.tracks.size(), [&](size_t ti) {
    if (trace.tracks[ti].kind == TrackKind::Cpu)
      cpuSlices(trace, static_cast<uint32_t>(ti), is_sync, is_cpu_collective, per_track[ti]);
    if (trace.tracks[ti].kind == TrackKind::Gpu) gpuOps(trace, static_cast<uint32_t>(ti), per_track[ti]);
  });
  addActivities(per_track, largest);
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti)
    if (trace.tracks[ti].kind == TrackKind::Gpu)
      for (size_t a = track_activities_[ti].first; a < track_activities_[ti].second; ++a)
        gpu_by_end_.emplace_back(activities_[a].end_ns, a);
  std::sort(gpu_by_end_.begin(), gpu_by_end_.end());
  addGpuStartDependencies(trace);
  addBlockingCalls(trace, is_sync);
  addCpuCollectiveThreads(trace, is_cpu_collective);
}

// The tracks' activities end to end, `first`'s first (without a copy),
// their node numbers moved to match.
void CriticalPathGraph::addActivities(std::vector<TrackActivities>& per_track, size_t first) {
  track_activities_.resize(per_track.size());
  if (per_track.empty()) return;
  activities_ = std::move(per_track[first].activities);
  track_activities_[first] = {0, activities_.size()};
  for (size_t ti = 0; ti < per_track.size(); ++ti) {
    if (ti == first) continue;
    track_activities_[ti] = {activities_.size(), activities_.size() + per_track[ti].activities.size()};
    activities_.insert(activities_.end(), per_track[ti].activities.begin(), per_track[ti].activities.end());
    per_track[ti].activities = {};
  }
  event_start_.resize(per_track.size());
  event_end_.resize(per_track.size());
  parallelFor(per_track.size(), [&](size_t ti) {
    TrackActivities& local = per_track[ti];
    const uint32_t shift = startNode(track_activities_[ti].first);
    if (shift != 0)
      for (std::vector<uint32_t>* nodes : {&local.event_start, &local.event_end})
        for (uint32_t& v : *nodes)
          if (v != kNone) v += shift;
    event_start_[ti] = std::move(local.event_start);
    event_end_[ti] = std::move(local.event_end);
  });
}

bool CriticalPathGraph::eventNodes(EventRef e, uint32_t& start, uint32_t& end) const {
  if (e.track >= event_start_.size() || e.index >= event_start_[e.track].size()) return false;
  start = event_start_[e.track][e.index];
  end = event_end_[e.track][e.index];
  return start != kNone && end != kNone;
}

void CriticalPathGraph::gpuOps(const Trace& trace, uint32_t ti, TrackActivities& out) {
  const Track& t = trace.tracks[ti];
  out.event_start.assign(t.size(), kNone);
  out.event_end.assign(t.size(), kNone);
  out.activities.reserve(t.size());
  for (uint32_t i = 0; i < t.size(); ++i) {
    if (!isGpuWork(t.category[i])) continue;
    const bool collective = isCollectiveKernelName(trace.strings.get(t.name_id[i]));
    const size_t a = out.activities.size();
    out.activities.push_back({ti, collective ? PathKind::Collective : PathKind::Gpu, false, static_cast<int32_t>(i),
                              t.start_ns[i], t.end_ns(i), t.dur_ns[i]});
    out.event_start[i] = startNode(a);
    out.event_end[i] = endNode(a);
  }
}

// What a GPU op's start waited for: its launch call, the op before it on its
// stream, or an op on another stream of its device. The one that allowed the
// latest start set it (its lag is the observed one); the others keep their
// least lag. Streams are independent here: they are done side by side.
void CriticalPathGraph::addGpuStartDependencies(const Trace& trace) {
  // Each GPU track's device (of its rank), found once per track.
  std::map<std::pair<int, int>, size_t> device_of_key;
  std::vector<size_t> device_of_track(trace.tracks.size(), SIZE_MAX);
  for (size_t ti = 0; ti < trace.tracks.size(); ++ti)
    if (const Track& t = trace.tracks[ti]; t.kind == TrackKind::Gpu)
      device_of_track[ti] = device_of_key.try_emplace({t.rank, t.device}, device_of_key.size()).first->second;
  std::vector<OpsByEnd> device_ops(device_of_key.size());
  for (const auto& [end, a] : gpu_by_end_) device_ops[device_of_track[activities_[a].track]].emplace_back(end, a);
  std::vector<std::vector<PathEdge>> per_track(trace.tracks.size());
  parallelFor(trace.tracks.size(), [&](size_t ti) {
    if (device_of_track[ti] != SIZE_MAX)
      gpuStartDependencies(trace, static_cast<uint32_t>(ti), device_ops[device_of_track[ti]], per_track[ti]);
  });
  for (const std::vector<PathEdge>& edges : per_track) edges_.insert(edges_.end(), edges.begin(), edges.end());
}

// device_ops: the ops of the track's device, by end.
void CriticalPathGraph::gpuStartDependencies(const Trace& trace, uint32_t ti, const OpsByEnd& device_ops,
                                             std::vector<PathEdge>& out) const {
  const Track& t = trace.tracks[ti];
  int64_t prev = -1;  // the activity with the latest end so far
  std::vector<Candidate> cands;
  for (size_t a = track_activities_[ti].first; a < track_activities_[ti].second; ++a) {
    const PathActivity& op = activities_[a];
    const int64_t s = op.start_ns;
    cands.clear();
    const int64_t corr = t.correlation[static_cast<size_t>(op.event)];
    if (const LaunchLink* link = corr >= 0 ? trace.launchFor(corr) : nullptr; link && link->launch) {
      const EventRef l = *link->launch;
      const Track& lt = trace.tracks[l.track];
      uint32_t node = kNone, unused = kNone;
      if (eventNodes(l, node, unused) && lt.start_ns[l.index] <= s)
        cands.push_back({node, lt.start_ns[l.index], std::min(lt.dur_ns[l.index], s - lt.start_ns[l.index]),
                         PathKind::Launch, l.track, static_cast<int32_t>(l.index)});
    }
    if (prev >= 0 && activities_[static_cast<size_t>(prev)].end_ns <= s)
      cands.push_back({endNode(static_cast<size_t>(prev)), activities_[static_cast<size_t>(prev)].end_ns, 0,
                       PathKind::Idle, ti, -1});
    int64_t allowed = std::numeric_limits<int64_t>::min();
    for (const Candidate& c : cands) allowed = std::max(allowed, c.time + c.min_lag);
    if (allowed < s) {
      auto it = std::upper_bound(device_ops.begin(), device_ops.end(),
                                 std::make_pair(s, std::numeric_limits<size_t>::max()));
      for (int tries = 0; it != device_ops.begin() && tries < 8; ++tries) {
        --it;
        if (it->first < s - kCrossStreamWindowNs || it->first <= allowed) break;
        if (activities_[it->second].track == ti) continue;
        cands.push_back({endNode(it->second), it->first, 0, PathKind::Wait, ti, -1});
        break;
      }
    }
    size_t binding = 0;
    for (size_t i = 1; i < cands.size(); ++i)
      if (cands[i].time + cands[i].min_lag > cands[binding].time + cands[binding].min_lag) binding = i;
    for (size_t i = 0; i < cands.size(); ++i) {
      const Candidate& c = cands[i];
      out.push_back({c.from, startNode(a), i == binding ? s - c.time : c.min_lag, -1, c.track, c.event, c.kind,
                     i == binding});
    }
    if (prev < 0 || op.end_ns >= activities_[static_cast<size_t>(prev)].end_ns) prev = static_cast<int64_t>(a);
  }
}

// A CPU call that returned only after GPU work finished: a synchronize (the
// latest GPU op that ended while it ran) or a copy whose own GPU op ended
// before it returned (a blocking copy: cudaMemcpy, or cudaMemcpyAsync to
// pageable memory). Not a kernel launch or an async memset: their GPU op may
// finish before the call returns without the call waiting for it.
void CriticalPathGraph::addBlockingCalls(const Trace& trace, const std::vector<uint8_t>& is_sync) {
  const std::vector<uint8_t> is_copy = nameFlags(trace.strings, [](std::string_view name) {
    return name.find("Memcpy") != std::string_view::npos ||
           (name.find("Memset") != std::string_view::npos && !name.ends_with("Async"));
  });
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.kind != TrackKind::Cpu) continue;
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (!isLaunchCall(t.category[i]) || event_end_[ti][i] == kNone) continue;
      const int64_t call_start = t.start_ns[i], call_end = t.end_ns(i);
      int64_t waited = -1;
      if (is_sync[t.name_id[i]]) {
        // The latest op of its own rank (a merged run) that ended while it ran.
        auto it = std::upper_bound(gpu_by_end_.begin(), gpu_by_end_.end(),
                                   std::make_pair(call_end, std::numeric_limits<size_t>::max()));
        while (it != gpu_by_end_.begin() && std::prev(it)->first > call_start) {
          --it;
          if (trace.tracks[activities_[it->second].track].rank != t.rank) continue;
          waited = static_cast<int64_t>(it->second);
          break;
        }
      } else if (const LaunchLink* link = is_copy[t.name_id[i]] && t.correlation[i] >= 0
                                              ? trace.launchFor(t.correlation[i])
                                              : nullptr) {
        for (EventRef op : link->gpu_ops) {
          uint32_t start = kNone, end = kNone;
          if (!eventNodes(op, start, end)) continue;
          const int64_t op_end = observedNs(end);
          if (op_end > call_start && op_end <= call_end &&
              (waited < 0 || op_end > activities_[static_cast<size_t>(waited)].end_ns))
            waited = static_cast<int64_t>(activityOf(end));
        }
      }
      if (waited >= 0)
        addEndDependency(endNode(static_cast<size_t>(waited)), activityOf(event_end_[ti][i]), PathKind::Wait, ti,
                         static_cast<int32_t>(i));
    }
  }
}

// Every member of a collective but the last to arrive ends after that one
// arrived: its end depends on the late member's start.
void CriticalPathGraph::addCollectives(const std::vector<CollectiveDependency>& collectives) {
  for (const CollectiveDependency& c : collectives) {
    uint32_t late_start = kNone;
    for (EventRef m : c.members) {
      uint32_t s = kNone, e = kNone;
      if (eventNodes(m, s, e) && (late_start == kNone || observedNs(s) > observedNs(late_start))) late_start = s;
    }
    if (late_start == kNone) continue;
    for (EventRef m : c.members) {
      uint32_t s = kNone, e = kNone;
      if (eventNodes(m, s, e) && s != late_start)
        addEndDependency(late_start, activityOf(e), PathKind::Collective, m.track, static_cast<int32_t>(m.index));
    }
  }
}

void CriticalPathGraph::addEndDependency(uint32_t from, size_t activity, PathKind kind, uint32_t track,
                                         int32_t event) {
  PathActivity& a = activities_[activity];
  const int64_t from_ns = observedNs(from);
  if (from_ns <= a.start_ns || from_ns > a.end_ns) return;  // it did not wait for it
  const int64_t lag = a.end_ns - from_ns;
  a.own_ns = std::min(a.own_ns, lag);
  edges_.push_back({from, endNode(activity), lag, -1, track, event, kind, true});
}

void CriticalPathGraph::finish() {
  const size_t n = nodeCount();
  // Dependencies grouped by the node they lead to (a counting sort, order kept).
  in_begin_.assign(n + 1, 0);
  for (const PathEdge& e : edges_) ++in_begin_[e.to + 1];
  for (size_t i = 0; i < n; ++i) in_begin_[i + 1] += in_begin_[i];
  UninitializedVector<PathEdge> by_to(edges_.size());
  std::vector<uint32_t> fill(in_begin_.begin(), in_begin_.end() - 1);
  for (const PathEdge& e : edges_) by_to[fill[e.to]++] = e;
  edges_ = std::move(by_to);

  // Kahn's order over dependencies, durations and thread order; a node on a
  // cycle (inconsistent clocks) keeps its observed time.
  std::vector<uint32_t> out_begin(n + 1, 0), out(edges_.size()), indegree(n, 0);
  for (const PathEdge& e : edges_) ++out_begin[e.from + 1];
  for (size_t i = 0; i < n; ++i) out_begin[i + 1] += out_begin[i];
  fill.assign(out_begin.begin(), out_begin.end() - 1);
  for (const PathEdge& e : edges_) out[fill[e.from]++] = e.to;
  for (uint32_t v = 0; v < n; ++v) {
    indegree[v] = in_begin_[v + 1] - in_begin_[v];
    if (v % 2 || activities_[activityOf(v)].chained) ++indegree[v];
  }
  // Ready nodes on a stack, a node's successor along its own track pushed
  // last: the order then runs along each track as far as it can (any
  // topological order serves), so the schedule reads times[] and the
  // activities nearly in sequence instead of hopping between tracks.
  order_.clear();
  order_.reserve(n);
  std::vector<uint32_t> ready;
  for (uint32_t v = static_cast<uint32_t>(n); v-- > 0;)
    if (indegree[v] == 0) ready.push_back(v);
  auto release = [&](uint32_t to) {
    if (--indegree[to] == 0) ready.push_back(to);
  };
  while (!ready.empty()) {
    const uint32_t v = ready.back();
    ready.pop_back();
    order_.push_back(v);
    for (uint32_t k = out_begin[v]; k < out_begin[v + 1]; ++k) release(out[k]);
    const size_t a = activityOf(v);
    if (v % 2 == 0)
      release(endNode(a));
    else if (a + 1 < activities_.size() && activities_[a + 1].chained)
      release(startNode(a + 1));
  }
}

void CriticalPathGraph::observedTimes(std::vector<int64_t>& times) const {
  times.resize(nodeCount());
  for (size_t a = 0; a < activities_.size(); ++a) {
    times[startNode(a)] = activities_[a].start_ns;
    times[endNode(a)] = activities_[a].end_ns;
  }
}

void CriticalPathGraph::schedule(const std::vector<uint8_t>& halved, std::vector<int64_t>& times,
                                 uint8_t which) const {
  // Nodes outside the order (on a cycle) keep their observed times; when
  // there are none, each node's time is written in order alone.
  if (order_.size() == nodeCount())
    times.resize(nodeCount());
  else
    observedTimes(times);
  for (uint32_t v : order_) {
    const size_t a = activityOf(v);
    const PathActivity& act = activities_[a];
    int64_t t = std::numeric_limits<int64_t>::min();
    if (v % 2) {
      const int64_t own = !halved.empty() && halved[a] == which ? act.own_ns / 2 : act.own_ns;
      t = times[startNode(a)] + own;
    } else if (act.chained) {
      t = times[endNode(a - 1)];
    } else if (in_begin_[v] == in_begin_[v + 1]) {
      times[v] = act.start_ns;  // nothing before it: as observed
      continue;
    }
    // A faster collective also moves data faster once its last rank arrived.
    const bool faster_collective = v % 2 && !halved.empty() && halved[a] == which;
    for (uint32_t k = in_begin_[v]; k < in_begin_[v + 1]; ++k) {
      const PathEdge& e = edges_[k];
      const int64_t lag = faster_collective && e.kind == PathKind::Collective ? e.lag_ns / 2 : e.lag_ns;
      t = std::max(t, times[e.from] + lag);
    }
    times[v] = t;
  }
}

}  // namespace fuselab
