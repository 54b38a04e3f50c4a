// A merged run's CriticalPathGraph from its ranks' parts: each part's
// activities, dependencies and event nodes laid after the ones before it,
// moved onto the run's aligned clock and the merged trace's tracks. Only
// the collectives and the order are left to do over the whole run.
#include <limits>

#include "profiling/analysis/CriticalPathGraph.h"
#include "profiling/trace/ParallelFor.h"

namespace fuselab {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// Whether every track of every rank has a merged track of its own.
bool tracksDistinct(const std::vector<std::vector<uint32_t>>& track_of, size_t merged_tracks) {
  std::vector<uint8_t> taken(merged_tracks, 0);
  for (const std::vector<uint32_t>& rank : track_of)
    for (uint32_t t : rank)
      if (t >= merged_tracks || taken[t]++) return false;
  return true;
}

}  // namespace

std::optional<CriticalPathGraph> CriticalPathGraph::join(const std::vector<const CriticalPathGraph*>& parts,
                                                         const std::vector<std::vector<uint32_t>>& track_of,
                                                         const std::vector<int64_t>& offsets_ns,
                                                         size_t merged_tracks,
                                                         const std::vector<CollectiveDependency>& collectives) {
  if (parts.size() != track_of.size() || parts.size() != offsets_ns.size() ||
      !tracksDistinct(track_of, merged_tracks))
    return std::nullopt;
  // Where each part's activities and dependencies begin.
  std::vector<size_t> first_activity(parts.size() + 1, 0), first_edge(parts.size() + 1, 0);
  for (size_t p = 0; p < parts.size(); ++p) {
    if (parts[p] && parts[p]->track_activities_.size() != track_of[p].size()) return std::nullopt;
    first_activity[p + 1] = first_activity[p] + (parts[p] ? parts[p]->activities_.size() : 0);
    first_edge[p + 1] = first_edge[p] + (parts[p] ? parts[p]->edges_.size() : 0);
  }
  CriticalPathGraph g;
  g.activities_.resize(first_activity.back());
  g.edges_.resize(first_edge.back());
  g.track_activities_.assign(merged_tracks, {0, 0});
  g.event_start_.resize(merged_tracks);
  g.event_end_.resize(merged_tracks);
  parallelFor(parts.size(), [&](size_t p) {
    if (!parts[p]) return;
    const CriticalPathGraph& part = *parts[p];
    const std::vector<uint32_t>& tracks = track_of[p];
    const int64_t offset = offsets_ns[p];
    const size_t base = first_activity[p];
    const uint32_t node_shift = startNode(base);
    for (size_t a = 0; a < part.activities_.size(); ++a) {
      PathActivity act = part.activities_[a];
      act.track = tracks[act.track];
      act.start_ns += offset;
      act.end_ns += offset;
      g.activities_[base + a] = act;
    }
    for (size_t k = 0; k < part.edges_.size(); ++k) {
      PathEdge e = part.edges_[k];
      e.from += node_shift;
      e.to += node_shift;
      e.track = tracks[e.track];
      if (e.activity >= 0) e.activity += static_cast<int32_t>(base);
      g.edges_[first_edge[p] + k] = e;
    }
    for (size_t ti = 0; ti < tracks.size(); ++ti) {
      const auto [first, last] = part.track_activities_[ti];
      g.track_activities_[tracks[ti]] = {first + base, last + base};
      for (auto [from, into] : {std::pair{&part.event_start_[ti], &g.event_start_[tracks[ti]]},
                                std::pair{&part.event_end_[ti], &g.event_end_[tracks[ti]]}}) {
        *into = *from;
        for (uint32_t& v : *into)
          if (v != kNone) v += node_shift;
      }
    }
  });
  g.addCollectives(collectives);
  g.finish();
  return g;
}

}  // namespace fuselab
