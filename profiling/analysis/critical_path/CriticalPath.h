// What set each step's time: the critical path through CPU threads, GPU
// streams and, in a merged run, every rank (../shared/DESIGN.md, "Critical
// path"). Built from the trace alone by CriticalPathGraph.h: each thread's
// time split into slices of its innermost event (or idle), GPU ops, and the
// dependencies between them (thread and stream order, launch -> GPU op,
// synchronisations, waits across streams, collectives across ranks). The
// path of a step walks back from the step's end along the dependency that
// set each time, so its segments tile the step: their total is the step's
// wall time. What-if: the steps' total with one op's own time halved,
// everything else held (recomputed over the same graph).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "profiling/trace/Trace.h"

namespace fuselab {

enum class PathKind : uint8_t {
  Cpu,         // a CPU op's own time (or a thread's time in no op, see Idle)
  Launch,      // a launch call enqueuing GPU work, and its latency to the GPU op's start
  Gpu,         // a kernel, memcpy or memset
  Wait,        // blocked: a synchronize returning after the GPU, a wait on another stream
  Idle,        // a thread in no recorded event, or a stream between back-to-back ops
  Collective,  // a collective's own time once its last rank arrived
};
inline constexpr size_t kPathKinds = 6;
std::string_view pathKindName(PathKind k);  // "cpu", "launch", "gpu", "wait", "idle", "collective"

struct PathSegment {
  PathKind kind = PathKind::Cpu;
  int rank = -1;                  // Track::rank of a merged run, else -1
  uint32_t track = 0;             // where it happened
  std::optional<EventRef> event;  // the op it is the time of, when one
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
};

struct StepPath {
  std::string name;   // "ProfilerStep#3", or "whole trace" without steps
  int64_t start_ns = 0;
  int64_t wall_ns = 0;  // from the step before's end to this step's end; = the sum of the segments
  std::vector<PathSegment> segments;  // in time order
  std::array<int64_t, kPathKinds> by_kind{};
  std::vector<std::pair<int, int64_t>> by_rank;  // (rank, ns), by rank; one entry (-1) for a single trace
};

// Halving one op's own time: the steps' total before and after.
struct WhatIf {
  std::string name;  // the op's; "ProfilerStep#* own time": the steps' annotations' own time, all steps'
  PathKind kind = PathKind::Cpu;
  int rank = -1;
  int64_t on_path_ns = 0;       // its time on the steps' paths
  int64_t steps_ns_before = 0;  // sum of the steps' wall times
  int64_t steps_ns_after = 0;
  double change() const;  // after / before - 1 (-0.31: the steps 31% shorter)
};

struct CriticalPathAnalysis {
  std::vector<StepPath> steps;  // by start
  std::vector<WhatIf> what_if;  // by on_path_ns, descending
};

// A collective across the ranks of a merged run: its members (one per rank,
// in the merged trace) end only after the last of them arrived (started).
struct CollectiveDependency {
  std::vector<EventRef> members;
};

struct CriticalPathOptions {
  size_t what_if_ops = 5;  // ops to try halving (the longest on the paths)
};

// `trace` finalized. Steps are the ProfilerStep#k annotations; in a merged
// run step k spans every rank's annotation k. A step's work ends when its
// annotations end or when the last GPU op launched in them ends, whichever
// is later, and starts where the step before it ended (the first: at its
// annotations' start), so a step whose GPU runs behind its CPU is measured
// by its GPU work. Without steps: one path over the whole trace.
CriticalPathAnalysis analyzeCriticalPath(const Trace& trace, const std::vector<CollectiveDependency>& collectives = {},
                                         const CriticalPathOptions& options = {});

// The same over a graph built beforehand for `trace` (CriticalPathGraph.h).
class CriticalPathGraph;
CriticalPathAnalysis analyzeCriticalPath(const Trace& trace, const CriticalPathGraph& graph,
                                         const CriticalPathOptions& options = {});
// The same over a graph of the tracks of `traces` (PathTraces.h: a run's
// ranks as the tracks of their merge, RunCriticalPath.h).
class PathTraces;
CriticalPathAnalysis analyzeCriticalPath(const PathTraces& traces, const CriticalPathGraph& graph,
                                         const CriticalPathOptions& options = {});

}  // namespace fuselab
