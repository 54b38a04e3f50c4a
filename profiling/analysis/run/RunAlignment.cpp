#include "profiling/analysis/run/RunAlignment.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "profiling/analysis/common/Intervals.h"

namespace fuselab {

namespace {

// Collectives that end together on every rank (a broadcast's root, or a
// send, may finish before its peers do).
bool endsTogether(CollectiveKind k) {
  return k == CollectiveKind::AllReduce || k == CollectiveKind::AllGather || k == CollectiveKind::ReduceScatter ||
         k == CollectiveKind::AllToAll || k == CollectiveKind::Barrier;
}

std::vector<const MatchedCollective*> endReferences(const std::vector<MatchedCollective>& matched) {
  std::vector<const MatchedCollective*> together, all;
  for (const MatchedCollective& m : matched) {
    all.push_back(&m);
    if (endsTogether(m.kind)) together.push_back(&m);
  }
  return together.empty() ? all : together;
}

// Offsets from collective ends, rank by rank outward from the lowest aligned
// rank; false for a rank that shares no collective with the aligned ones.
std::vector<bool> collectiveOffsets(const std::vector<std::vector<CollectiveEvent>>& per_rank,
                                    const std::vector<const MatchedCollective*>& refs, std::vector<int64_t>& offsets) {
  std::vector<bool> aligned(per_rank.size(), false);
  if (refs.empty()) return aligned;
  size_t root = per_rank.size();
  for (const MatchedCollective* m : refs) root = std::min(root, m->members.front().rank_pos);
  aligned[root] = true;
  offsets[root] = 0;
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t r = 0; r < per_rank.size(); ++r) {
      if (aligned[r]) continue;
      std::vector<int64_t> diffs;
      for (const MatchedCollective* m : refs) {
        const CollectiveMember* mine = nullptr;
        const CollectiveMember* known = nullptr;
        for (const CollectiveMember& c : m->members) {
          if (c.rank_pos == r) mine = &c;
          else if (!known && aligned[c.rank_pos]) known = &c;
        }
        if (mine && known)
          diffs.push_back(per_rank[known->rank_pos][known->event].end_ns + offsets[known->rank_pos] -
                          per_rank[r][mine->event].end_ns);
      }
      if (diffs.empty()) continue;
      offsets[r] = densestMedianNs(std::move(diffs), kEndWindowNs);
      aligned[r] = progress = true;
    }
  }
  return aligned;
}

// Members whose aligned end is far from their collective's median end.
size_t dropMismatched(const std::vector<std::vector<CollectiveEvent>>& per_rank,
                      std::vector<MatchedCollective>& matched, const std::vector<int64_t>& offsets) {
  size_t dropped = 0;
  auto alignedEnd = [&](const CollectiveMember& c) { return per_rank[c.rank_pos][c.event].end_ns + offsets[c.rank_pos]; };
  for (MatchedCollective& m : matched) {
    std::vector<int64_t> ends;
    for (const CollectiveMember& c : m.members) ends.push_back(alignedEnd(c));
    const int64_t median = medianNs(ends);
    const size_t before = m.members.size();
    std::erase_if(m.members, [&](const CollectiveMember& c) { return std::abs(alignedEnd(c) - median) > kEndToleranceNs; });
    dropped += before - m.members.size();
  }
  std::erase_if(matched, [](const MatchedCollective& m) { return m.members.size() < 2; });
  return dropped;
}

int64_t residualSkew(const std::vector<std::vector<CollectiveEvent>>& per_rank,
                     const std::vector<const MatchedCollective*>& refs, const std::vector<int64_t>& offsets) {
  std::vector<int64_t> spreads;
  for (const MatchedCollective* m : refs) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const CollectiveMember& c : m->members) {
      const int64_t end = per_rank[c.rank_pos][c.event].end_ns + offsets[c.rank_pos];
      lo = std::min(lo, end);
      hi = std::max(hi, end);
    }
    spreads.push_back(hi - lo);
  }
  return medianNs(std::move(spreads));
}

// Why no collective matched although every rank has some: each rank's
// groups and first collective, so a reader sees which key differs.
std::string whyNoneMatched(const Run& run, const std::vector<std::vector<CollectiveEvent>>& per_rank) {
  std::string why = "every rank has collectives but none matched across ranks (same group, kind, size, order):";
  for (size_t r = 0; r < per_rank.size(); ++r) {
    std::set<std::string> groups;
    for (const CollectiveEvent& c : per_rank[r]) groups.insert(c.group);
    const CollectiveEvent& first = per_rank[r].front();
    why += (r ? "; rank " : " rank ") + std::to_string(run.ranks[r].rank) + " has " +
           std::to_string(per_rank[r].size()) + " in";
    for (const std::string& g : groups) why += " [" + g + "]";
    why += ", first " + first.name + (first.in_bytes >= 0 ? " of " + std::to_string(first.in_bytes) + " B" : "");
  }
  return why + "; aligned on the Kineto epoch";
}

bool everyRankHasCollectives(const std::vector<std::vector<CollectiveEvent>>& per_rank) {
  return per_rank.size() > 1 &&
         std::all_of(per_rank.begin(), per_rank.end(), [](const auto& events) { return !events.empty(); });
}

}  // namespace

std::string_view alignMethodName(AlignMethod m) {
  switch (m) {
    case AlignMethod::None: return "none";
    case AlignMethod::Epoch: return "epoch";
    case AlignMethod::Collectives: return "collectives";
  }
  return "epoch";
}

std::optional<AlignMethod> alignMethodFromName(std::string_view name) {
  for (AlignMethod m : {AlignMethod::None, AlignMethod::Epoch, AlignMethod::Collectives})
    if (alignMethodName(m) == name) return m;
  return std::nullopt;
}

int64_t densestMedianNs(std::vector<int64_t> values, int64_t window) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t best_begin = 0, best_end = 1;
  for (size_t begin = 0, end = 0; begin < values.size(); ++begin) {
    while (end < values.size() && values[end] - values[begin] <= window) ++end;
    if (end - begin > best_end - best_begin) best_begin = begin, best_end = end;
  }
  return medianNs(std::vector<int64_t>(values.begin() + best_begin, values.begin() + best_end));
}

RunAlignment alignRun(const Run& run, const std::vector<std::vector<CollectiveEvent>>& per_rank,
                      std::vector<MatchedCollective>& matched, std::optional<AlignMethod> requested) {
  RunAlignment a;
  const size_t n = run.ranks.size();
  a.offsets_ns.assign(n, 0);
  const auto refs = endReferences(matched);
  a.method = requested.value_or(refs.empty() ? AlignMethod::Epoch : AlignMethod::Collectives);
  if (refs.empty() && a.method != AlignMethod::None && everyRankHasCollectives(per_rank)) {
    a.method = AlignMethod::Epoch;
    a.note = whyNoneMatched(run, per_rank);
  } else if (a.method == AlignMethod::Collectives && refs.empty()) {
    a.method = AlignMethod::Epoch;
    a.note = "no collective matched across ranks: aligned on the Kineto epoch";
  }
  if (a.method == AlignMethod::None) {
    // Undo each file's epoch, keeping the first rank where it was.
    const int64_t base0 = n ? run.ranks[0].trace.meta.base_time_ns : 0;
    for (size_t r = 0; r < n; ++r) a.offsets_ns[r] = base0 - run.ranks[r].trace.meta.base_time_ns;
  } else if (a.method == AlignMethod::Collectives) {
    std::vector<bool> aligned = collectiveOffsets(per_rank, refs, a.offsets_ns);
    std::string unaligned;
    for (size_t r = 0; r < n; ++r)
      if (!aligned[r]) unaligned += (unaligned.empty() ? "" : ", ") + std::to_string(run.ranks[r].rank);
    if (!unaligned.empty()) a.note = "ranks sharing no collective with the others keep the epoch: " + unaligned;
  }
  if (a.method == AlignMethod::Collectives) a.mismatched = dropMismatched(per_rank, matched, a.offsets_ns);
  const auto kept = endReferences(matched);
  a.collectives_used = kept.size();
  a.residual_skew_ns = residualSkew(per_rank, kept, a.offsets_ns);
  return a;
}

}  // namespace fuselab
