// The dependency graph behind CriticalPath.h. Activities: each CPU thread's
// time cut into slices at every event boundary (a slice is the time of its
// innermost event, or idle between events), and each GPU op. Nodes: the
// start and the end of each activity. Edges carry a time: an activity's own
// duration (start -> end), or the lag of a dependency (launch -> GPU op,
// stream order, a wait on another stream, a synchronize returning after the
// GPU op it waited for, a collective ending after its last rank arrived).
//
// The lags are those observed where a dependency set the later time (the
// "binding" one) and the least possible elsewhere, so scheduling the graph
// as it was reproduces every observed time, and scheduling it with some
// durations changed shows what they would have changed, the rest held.
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/analysis/CriticalPath.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct PathActivity {
  uint32_t track = 0;
  int64_t event = -1;  // index in the track; -1: a thread idle between events
  PathKind kind = PathKind::Cpu;
  int64_t start_ns = 0, end_ns = 0;  // observed
  int64_t own_ns = 0;  // its own time: the duration, less what a binding end dependency explains
};

struct PathEdge {
  uint32_t from = 0, to = 0;  // nodes
  int64_t lag_ns = 0;         // dependencies; duration edges use the activity's own_ns
  int64_t activity = -1;      // >= 0: the duration edge of that activity
  PathKind kind = PathKind::Cpu;
  bool binding = false;       // set the observed time of `to`
  // What a segment along this edge is the time of (dependencies).
  uint32_t track = 0;
  int64_t event = -1;
};

class CriticalPathGraph {
 public:
  CriticalPathGraph(const Trace& trace, const std::vector<CollectiveDependency>& collectives);

  static uint32_t startNode(size_t activity) { return static_cast<uint32_t>(2 * activity); }
  static uint32_t endNode(size_t activity) { return static_cast<uint32_t>(2 * activity + 1); }
  static size_t activityOf(uint32_t node) { return node / 2; }
  size_t nodeCount() const { return 2 * activities_.size(); }
  int64_t observedNs(uint32_t node) const;

  const std::vector<PathActivity>& activities() const { return activities_; }
  // Edges into `node`: [inBegin(node), inBegin(node + 1)) of edges().
  const std::vector<PathEdge>& edges() const { return edges_; }
  uint32_t inBegin(uint32_t node) const { return in_begin_[node]; }
  // The node at an event's start and end (CPU events: its first and last
  // slice; GPU ops: their activity). False when the event has no activity.
  bool eventNodes(EventRef e, uint32_t& start, uint32_t& end) const;

  // Earliest time of every node, with each activity's own time multiplied by
  // scale[activity] (empty: as observed). Nodes without dependencies keep
  // their observed times.
  void schedule(const std::vector<double>& scale, std::vector<int64_t>& times) const;

 private:
  void addCpuSlices(const Trace& trace, uint32_t track);
  void addGpuOps(const Trace& trace, uint32_t track);
  void addGpuStartDependencies(const Trace& trace);
  void addBlockingCalls(const Trace& trace);
  void addCollectives(const std::vector<CollectiveDependency>& collectives);
  void addEndDependency(uint32_t from, size_t activity, PathKind kind, uint32_t track, int64_t event);
  void finish();

  std::vector<PathActivity> activities_;
  std::vector<PathEdge> edges_;
  std::vector<uint32_t> in_begin_;
  std::vector<uint32_t> order_;  // topological
  // Per track, per event: its start and end node (UINT32_MAX: none).
  std::vector<std::vector<uint32_t>> event_start_, event_end_;
};

}  // namespace fuselab
