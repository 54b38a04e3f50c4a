#include "profiling/analysis/run/RunMatching.h"

#include <algorithm>
#include <map>

namespace fuselab {

namespace {

// Sizes every rank of the collective must agree on.
bool sameSizeOnEveryRank(CollectiveKind k) {
  return k == CollectiveKind::AllReduce || k == CollectiveKind::Broadcast || k == CollectiveKind::Reduce ||
         k == CollectiveKind::AllGather || k == CollectiveKind::ReduceScatter || k == CollectiveKind::Barrier;
}

bool sameCollective(const CollectiveEvent& a, const CollectiveEvent& b) {
  if (a.name != b.name) return false;
  if (!sameSizeOnEveryRank(a.kind) || a.in_bytes < 0 || b.in_bytes < 0) return true;
  return a.in_bytes == b.in_bytes;
}

using Sequence = std::vector<size_t>;  // event indices of one rank in one group

// Pairs (i in ref, j in other). Longest common subsequence when the table
// is small enough, else position by position where the collectives agree.
std::vector<std::pair<size_t, size_t>> pairUp(const std::vector<CollectiveEvent>& ref_events, const Sequence& ref,
                                              const std::vector<CollectiveEvent>& events, const Sequence& seq) {
  const size_t n = ref.size(), m = seq.size();
  auto same = [&](size_t i, size_t j) { return sameCollective(ref_events[ref[i]], events[seq[j]]); };
  std::vector<std::pair<size_t, size_t>> pairs;
  bool identical = n == m;
  for (size_t i = 0; identical && i < n; ++i) identical = same(i, i);
  constexpr size_t kMaxTable = size_t(1) << 25;  // 32M cells of 4 bytes
  if (identical || n * m > kMaxTable) {
    for (size_t i = 0; i < std::min(n, m); ++i)
      if (same(i, i)) pairs.emplace_back(i, i);
    return pairs;
  }
  // lcs[i][j]: longest common subsequence of ref[i..] and seq[j..].
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;) at(i, j) = same(i, j) ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  for (size_t i = 0, j = 0; i < n && j < m;) {
    if (same(i, j) && at(i, j) == at(i + 1, j + 1) + 1) {
      pairs.emplace_back(i++, j++);
    } else if (at(i + 1, j) >= at(i, j + 1)) {
      ++i;
    } else {
      ++j;
    }
  }
  return pairs;
}

}  // namespace

std::vector<MatchedCollective> matchCollectives(const std::vector<std::vector<CollectiveEvent>>& per_rank) {
  // group -> per rank position -> sequence
  std::map<std::string, std::vector<Sequence>> groups;
  for (size_t r = 0; r < per_rank.size(); ++r)
    for (size_t e = 0; e < per_rank[r].size(); ++e) {
      auto& seqs = groups[per_rank[r][e].group];
      seqs.resize(per_rank.size());
      seqs[r].push_back(e);
    }
  std::vector<MatchedCollective> out;
  for (const auto& [group, seqs] : groups) {
    size_t ref = 0;
    for (size_t r = 1; r < seqs.size(); ++r)
      if (seqs[r].size() > seqs[ref].size()) ref = r;
    std::vector<MatchedCollective> row(seqs[ref].size());
    for (size_t i = 0; i < row.size(); ++i) {
      const CollectiveEvent& c = per_rank[ref][seqs[ref][i]];
      row[i].group = group;
      row[i].name = c.name;
      row[i].kind = c.kind;
      row[i].index = i;
    }
    for (size_t r = 0; r < seqs.size(); ++r) {
      if (seqs[r].empty()) continue;
      if (r == ref) {
        for (size_t i = 0; i < row.size(); ++i) row[i].members.push_back({r, seqs[r][i]});
        continue;
      }
      for (auto [i, j] : pairUp(per_rank[ref], seqs[ref], per_rank[r], seqs[r])) row[i].members.push_back({r, seqs[r][j]});
    }
    for (MatchedCollective& m : row) {
      if (m.members.size() < 2) continue;
      std::sort(m.members.begin(), m.members.end(),
                [](const CollectiveMember& a, const CollectiveMember& b) { return a.rank_pos < b.rank_pos; });
      out.push_back(std::move(m));
    }
  }
  return out;
}

}  // namespace fuselab
