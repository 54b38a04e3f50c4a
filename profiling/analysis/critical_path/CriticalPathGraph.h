// The dependency graph behind CriticalPath.h. Activities: each CPU thread's
// time cut into slices at every event boundary (a slice is the time of its
// innermost event, or idle between events), and each GPU op. Nodes: the
// start and the end of each activity. Edges carry a time: an activity's own
// duration (start -> end), or the lag of a dependency (launch -> GPU op,
// stream order, a wait on another stream, a synchronize returning after the
// GPU op it waited for, a collective ending after its last rank arrived, a
// CPU collective's worker thread and the thread that enqueued and awaited it).
//
// The lags are those observed where a dependency set the later time (the
// "binding" one) and the least possible elsewhere, so scheduling the graph
// as it was reproduces every observed time, and scheduling it with some
// durations changed shows what they would have changed, the rest held.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "profiling/analysis/critical_path/CriticalPath.h"
#include "profiling/trace/Trace.h"
#include "profiling/trace/UninitializedVector.h"

namespace fuselab {

// 32 bytes: a long trace has about two per event, and the graph is most of
// what `analyze` holds beside the trace (kMaxPathTracks bounds `track`).
inline constexpr uint32_t kMaxPathTracks = uint32_t(1) << 28;
struct PathActivity {
  PathActivity() = default;
  PathActivity(uint32_t track, PathKind kind, bool chained, int32_t event, int64_t start_ns, int64_t end_ns,
               int64_t own_ns)
      : track(track), kind(kind), chained(chained), event(event), start_ns(start_ns), end_ns(end_ns), own_ns(own_ns) {}

  uint32_t track : 28 = 0;
  PathKind kind : 3 = PathKind::Cpu;
  bool chained : 1 = false;  // starts where the activity before it (on its thread) ended
  int32_t event = -1;  // index in the track; -1: a thread idle between events
  int64_t start_ns = 0, end_ns = 0;  // observed
  int64_t own_ns = 0;  // its own time: the duration, less what a binding end dependency explains
};
static_assert(sizeof(PathActivity) == 32);

struct PathEdge {
  uint32_t from = 0, to = 0;  // nodes
  int64_t lag_ns = 0;         // dependencies; duration edges use the activity's own_ns
  int32_t activity = -1;      // >= 0: the duration edge of that activity
  // What a segment along this edge is the time of (dependencies).
  uint32_t track = 0;
  int32_t event = -1;
  PathKind kind = PathKind::Cpu;
  bool binding = false;  // set the observed time of `to`
};

class CriticalPathGraph {
 public:
  CriticalPathGraph(const Trace& trace, const std::vector<CollectiveDependency>& collectives);

  // One rank's part of a run's graph: everything but the collectives, on
  // the rank's own tracks and clock, not yet ordered. Built while the rank's
  // events are at hand (RunStreaming.h), so that a run's graph is only laid
  // end to end once every rank is read.
  static CriticalPathGraph rankPart(const Trace& rank_trace);
  // A merged run's graph (RunMerge.h) from parts[p], rank p's part: moved
  // onto the aligned axis (offsets_ns) and the merged trace's tracks
  // (track_of), then the collectives (members in the merged trace). The
  // same graph as one built over the merged trace. nullopt when two tracks
  // of a rank share one merged track (then build over the merged trace).
  static std::optional<CriticalPathGraph> join(const std::vector<const CriticalPathGraph*>& parts,
                                               const std::vector<std::vector<uint32_t>>& track_of,
                                               const std::vector<int64_t>& offsets_ns, size_t merged_tracks,
                                               const std::vector<CollectiveDependency>& collectives);

  static uint32_t startNode(size_t activity) { return static_cast<uint32_t>(2 * activity); }
  static uint32_t endNode(size_t activity) { return static_cast<uint32_t>(2 * activity + 1); }
  static size_t activityOf(uint32_t node) { return node / 2; }
  size_t nodeCount() const { return 2 * activities_.size(); }
  int64_t observedNs(uint32_t node) const {
    const PathActivity& a = activities_[activityOf(node)];
    return node % 2 ? a.end_ns : a.start_ns;
  }

  const UninitializedVector<PathActivity>& activities() const { return activities_; }
  // Calls f(const PathEdge&) for each edge into `node`: the activity's own
  // duration into an end node, the thread order into a chained start, and
  // the dependencies. None: the node keeps its observed time.
  template <typename F>
  void forEachPredecessor(uint32_t node, F&& f) const {
    const size_t a = activityOf(node);
    const PathActivity& act = activities_[a];
    if (node % 2)
      f(PathEdge{startNode(a), node, 0, static_cast<int32_t>(a), act.track, act.event, act.kind,
                 act.own_ns == act.end_ns - act.start_ns});
    else if (act.chained)
      f(PathEdge{endNode(a - 1), node, 0, -1, act.track, act.event, act.kind, true});
    for (uint32_t k = in_begin_[node]; k < in_begin_[node + 1]; ++k) f(edges_[k]);
  }
  // The node at an event's start and end (CPU events: its first and last
  // slice; GPU ops: their activity). False when the event has no activity.
  bool eventNodes(EventRef e, uint32_t& start, uint32_t& end) const;

  // Every node's observed time: what schedule() gives with nothing halved.
  void observedTimes(std::vector<int64_t>& times) const;
  // Earliest time of every node, with the own time of each activity whose
  // `halved` mark is `which` cut in half (empty: as observed). Nodes
  // without dependencies keep their observed times.
  void schedule(const std::vector<uint8_t>& halved, std::vector<int64_t>& times, uint8_t which = 1) const;

 private:
  CriticalPathGraph() = default;
  // Every dependency within `trace` (not the collectives), not yet ordered.
  explicit CriticalPathGraph(const Trace& trace);
  // One track's activities and its events' nodes, numbered from 0 (built
  // side by side, then laid end to end).
  struct TrackActivities {
    UninitializedVector<PathActivity> activities;
    std::vector<uint32_t> event_start, event_end;
  };
  // is_sync, is_cpu_collective: per name id.
  static void cpuSlices(const Trace& trace, uint32_t track, const std::vector<uint8_t>& is_sync,
                        const std::vector<uint8_t>& is_cpu_collective, TrackActivities& out);
  static void gpuOps(const Trace& trace, uint32_t track, TrackActivities& out);
  void addActivities(std::vector<TrackActivities>& per_track, size_t first);
  // GPU ops (activities) by end.
  using OpsByEnd = std::vector<std::pair<int64_t, size_t>>;
  void addGpuStartDependencies(const Trace& trace);
  void gpuStartDependencies(const Trace& trace, uint32_t track, const OpsByEnd& device_ops,
                            std::vector<PathEdge>& out) const;
  void addBlockingCalls(const Trace& trace, const std::vector<uint8_t>& is_sync);
  void addCollectives(const std::vector<CollectiveDependency>& collectives);
  void addCpuCollectiveThreads(const Trace& trace, const std::vector<uint8_t>& is_cpu_collective);
  size_t sliceAt(uint32_t track, int64_t time) const;  // the CPU slice of `track` running at `time`, or SIZE_MAX
  void addEndDependency(uint32_t from, size_t activity, PathKind kind, uint32_t track, int32_t event);
  // Groups the dependencies by the node they lead to and orders the nodes.
  void finish();
  // join(): the dependencies from edges_[grouped] on (the collectives) put
  // into the groups of in_begin_, after the ones there.
  void groupAdded(size_t grouped);
  // join(): order_ from the parts' own orders (staged[ranges[p]], part p's,
  // in the graph's nodes): each part's nodes in their order, a node held
  // while a dependency of it added after `grouped` (a collective) leads
  // from a node not yet ordered. False when the parts hold each other up.
  bool orderFromParts(const UninitializedVector<uint32_t>& staged, const std::vector<std::pair<size_t, size_t>>& ranges,
                      size_t grouped);

  // Unwritten on resize: join() fills them on every core.
  UninitializedVector<PathActivity> activities_;
  // Dependencies only (durations and thread order are implicit): grouped by
  // the node they lead to, [in_begin_[v], in_begin_[v + 1]).
  UninitializedVector<PathEdge> edges_;
  UninitializedVector<uint32_t> in_begin_;
  UninitializedVector<uint32_t> order_;  // topological
  // Per track: its activities (a CPU thread's slices, a stream's ops), [first, last) of activities_.
  std::vector<std::pair<size_t, size_t>> track_activities_;
  OpsByEnd gpu_by_end_;
  // Per track, per event: its start and end node (UINT32_MAX: none).
  std::vector<std::vector<uint32_t>> event_start_, event_end_;
};

}  // namespace fuselab
