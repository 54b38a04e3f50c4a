// A merged run's CriticalPathGraph from its ranks' parts: each part's
// activities, dependencies (grouped by the node they lead to) and event
// nodes laid after the ones before it, moved onto the run's aligned clock
// and the merged trace's tracks. Then the collectives, put into their
// groups, and the order: the parts' own orders taken in turn, each held
// where a collective waits for another rank's node.
#include <algorithm>
#include <limits>

#include "profiling/analysis/critical_path/CriticalPathGraph.h"
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
      merged_tracks >= kMaxPathTracks || !tracksDistinct(track_of, merged_tracks))
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
  // Every element of these is written below, part by part, on every core.
  CriticalPathGraph g;
  g.activities_.resize(first_activity.back());
  g.edges_.resize(first_edge.back());
  g.in_begin_.resize(g.nodeCount() + 1);
  g.in_begin_.back() = static_cast<uint32_t>(g.edges_.size());
  g.track_activities_.assign(merged_tracks, {0, 0});
  g.event_start_.resize(merged_tracks);
  g.event_end_.resize(merged_tracks);
  UninitializedVector<uint32_t> staged(g.nodeCount());  // the parts' orders, end to end
  std::vector<std::pair<size_t, size_t>> ranges(parts.size());  // of staged (a part without one: empty)
  for (size_t p = 0; p < parts.size(); ++p) ranges[p] = {startNode(first_activity[p]), startNode(first_activity[p])};
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
  UninitializedVector<PathEdge> edges;
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

bool CriticalPathGraph::orderFromParts(const UninitializedVector<uint32_t>& staged,
                                       const std::vector<std::pair<size_t, size_t>>& ranges, size_t grouped) {
  // Each node's place in staged (kNone: in no part's order), filled part by
  // part: a node's part is the last whose range begins at or before it.
  const size_t parts = ranges.size();
  UninitializedVector<uint32_t> place(nodeCount());
  parallelFor(parts, [&](size_t p) {
    const size_t nodes_end = p + 1 < parts ? ranges[p + 1].first : nodeCount();
    std::fill(place.begin() + static_cast<std::ptrdiff_t>(ranges[p].first),
              place.begin() + static_cast<std::ptrdiff_t>(nodes_end), kNone);
    for (size_t i = ranges[p].first; i < ranges[p].second; ++i) place[staged[i]] = static_cast<uint32_t>(i);
  });
  auto partOf = [&](uint32_t v) {
    const auto it = std::upper_bound(ranges.begin(), ranges.end(), v,
                                     [](uint32_t node, const auto& r) { return node < r.first; });
    return static_cast<size_t>(it - ranges.begin()) - 1;
  };
  std::vector<std::pair<uint32_t, uint32_t>> holds;  // (to, from), by to
  for (size_t k = grouped; k < edges_.size(); ++k) holds.emplace_back(edges_[k].to, edges_[k].from);
  std::sort(holds.begin(), holds.end());
  // Per part, the places of its held nodes, in order.
  std::vector<std::vector<uint32_t>> held(parts);
  for (size_t k = 0; k < holds.size(); ++k)
    if ((k == 0 || holds[k].first != holds[k - 1].first) && place[holds[k].first] != kNone)
      held[partOf(holds[k].first)].push_back(place[holds[k].first]);
  for (std::vector<uint32_t>& h : held) std::sort(h.begin(), h.end());

  // Each part's order runs on from next[p] up to its next held node, which
  // goes once every node it waits for is ordered. The runs are only noted
  // here and copied into order_ side by side after.
  std::vector<size_t> next(parts), next_held(parts, 0);
  for (size_t p = 0; p < parts; ++p) next[p] = ranges[p].first;
  auto ordered = [&](uint32_t u) { return place[u] != kNone && place[u] < next[partOf(u)]; };
  auto ready = [&](uint32_t v) {
    for (auto it = std::lower_bound(holds.begin(), holds.end(), std::pair{v, 0u}); it != holds.end() && it->first == v;
         ++it)
      if (!ordered(it->second)) return false;
    return true;
  };
  std::vector<std::pair<size_t, size_t>> runs;  // [begin, end) of staged, in order_'s order
  for (bool moved = true; moved;) {
    moved = false;
    for (size_t p = 0; p < parts; ++p) {
      const size_t begin = next[p];
      while (next[p] < ranges[p].second) {
        const bool at_held = next_held[p] < held[p].size() && held[p][next_held[p]] == next[p];
        if (at_held && !ready(staged[next[p]])) break;
        if (at_held) ++next_held[p];
        next[p] = next_held[p] < held[p].size() ? std::max<size_t>(held[p][next_held[p]], next[p] + 1)
                                                : ranges[p].second;
      }
      if (next[p] > begin) runs.emplace_back(begin, next[p]), moved = true;
    }
  }
  for (size_t p = 0; p < parts; ++p)
    if (next[p] < ranges[p].second) return false;
  std::vector<size_t> at(runs.size() + 1, 0);
  for (size_t r = 0; r < runs.size(); ++r) at[r + 1] = at[r] + runs[r].second - runs[r].first;
  order_.resize(at.back());
  parallelFor(runs.size(), [&](size_t r) {
    std::copy(staged.begin() + static_cast<std::ptrdiff_t>(runs[r].first),
              staged.begin() + static_cast<std::ptrdiff_t>(runs[r].second),
              order_.begin() + static_cast<std::ptrdiff_t>(at[r]));
  });
  return true;
}

}  // namespace fuselab
