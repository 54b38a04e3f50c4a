// A merged run's CriticalPathGraph from its ranks' parts: each part's
// activities, dependencies (grouped by the node they lead to) and event
// nodes laid after the ones before it, moved onto the run's aligned clock
// and the merged trace's tracks. Then the collectives, put into their
// groups, and the order: the parts' own orders taken in turn, each held
// where a collective waits for another rank's node.
#include <algorithm>
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
    if (parts[p] && (parts[p]->track_activities_.size() != track_of[p].size() ||
                     parts[p]->in_begin_.size() != parts[p]->nodeCount() + 1))  // not a rankPart
      return std::nullopt;
    first_activity[p + 1] = first_activity[p] + (parts[p] ? parts[p]->activities_.size() : 0);
    first_edge[p + 1] = first_edge[p] + (parts[p] ? parts[p]->edges_.size() : 0);
  }
  CriticalPathGraph g;
  g.activities_.resize(first_activity.back());
  g.edges_.resize(first_edge.back());
  g.in_begin_.assign(g.nodeCount() + 1, static_cast<uint32_t>(g.edges_.size()));
  g.track_activities_.assign(merged_tracks, {0, 0});
  g.event_start_.resize(merged_tracks);
  g.event_end_.resize(merged_tracks);
  std::vector<uint32_t> staged(g.nodeCount());  // the parts' orders, end to end
  std::vector<std::pair<size_t, size_t>> ranges(parts.size());
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
      g.edges_[first_edge[p] + k] = e;
    }
    for (size_t v = 0; v < part.nodeCount(); ++v)
      g.in_begin_[node_shift + v] = part.in_begin_[v] + static_cast<uint32_t>(first_edge[p]);
    ranges[p] = {node_shift, node_shift + part.order_.size()};
    for (size_t i = 0; i < part.order_.size(); ++i) staged[node_shift + i] = part.order_[i] + node_shift;
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
  const size_t grouped = g.edges_.size();
  g.addCollectives(collectives);
  if (!g.orderFromParts(staged, ranges, grouped)) {
    g.finish();  // the parts' orders hold each other up: order the whole graph
    return g;
  }
  g.groupAdded(grouped);
  return g;
}

void CriticalPathGraph::groupAdded(size_t grouped) {
  std::vector<PathEdge> added(edges_.begin() + static_cast<std::ptrdiff_t>(grouped), edges_.end());
  if (added.empty()) return;
  std::stable_sort(added.begin(), added.end(), [](const PathEdge& a, const PathEdge& b) { return a.to < b.to; });
  std::vector<PathEdge> edges;
  edges.reserve(edges_.size());
  size_t copied = 0;  // of the grouped ones
  for (const PathEdge& e : added) {
    const size_t group_end = in_begin_[e.to + 1];
    edges.insert(edges.end(), edges_.begin() + static_cast<std::ptrdiff_t>(copied),
                 edges_.begin() + static_cast<std::ptrdiff_t>(group_end));
    copied = group_end;
    edges.push_back(e);
  }
  edges.insert(edges.end(), edges_.begin() + static_cast<std::ptrdiff_t>(copied),
               edges_.begin() + static_cast<std::ptrdiff_t>(grouped));
  edges_ = std::move(edges);
  // Each group begins later by the added ones that lead to nodes before it.
  size_t k = 0;
  for (uint32_t v = 0; v + 1 < in_begin_.size(); ++v) {
    while (k < added.size() && added[k].to < v) ++k;
    in_begin_[v] += static_cast<uint32_t>(k);
  }
  in_begin_.back() = static_cast<uint32_t>(edges_.size());
}

bool CriticalPathGraph::orderFromParts(const std::vector<uint32_t>& staged,
                                       const std::vector<std::pair<size_t, size_t>>& ranges, size_t grouped) {
  // Per node: ordered yet (1), held by added dependencies (2).
  std::vector<uint8_t> state(nodeCount(), 0);
  for (size_t k = grouped; k < edges_.size(); ++k) state[edges_[k].to] = 2;
  std::vector<std::pair<uint32_t, uint32_t>> holds;  // (to, from), by to
  for (size_t k = grouped; k < edges_.size(); ++k) holds.emplace_back(edges_[k].to, edges_[k].from);
  std::sort(holds.begin(), holds.end());
  auto ready = [&](uint32_t v) {
    if (!(state[v] & 2)) return true;
    for (auto it = std::lower_bound(holds.begin(), holds.end(), std::pair{v, 0u}); it != holds.end() && it->first == v;
         ++it)
      if (!(state[it->second] & 1)) return false;
    return true;
  };
  order_.clear();
  order_.reserve(staged.size());
  std::vector<size_t> next(ranges.size());
  for (size_t p = 0; p < ranges.size(); ++p) next[p] = ranges[p].first;
  for (bool moved = true; moved;) {
    moved = false;
    for (size_t p = 0; p < ranges.size(); ++p)
      for (; next[p] < ranges[p].second && ready(staged[next[p]]); ++next[p]) {
        state[staged[next[p]]] |= 1;
        order_.push_back(staged[next[p]]);
        moved = true;
      }
  }
  for (size_t p = 0; p < ranges.size(); ++p)
    if (next[p] < ranges[p].second) return false;
  return true;
}

}  // namespace fuselab
