#include "profiling/analysis/run/RunCollectives.h"

#include <algorithm>

namespace fuselab {

int collectiveGroupSize(const Run& run, const CollectiveEvent& c, size_t rank_pos) {
  if (c.group_size > 0) return c.group_size;
  const DistributedInfo& info = run.ranks[rank_pos].info;
  if (c.group.starts_with("pg ")) {
    if (auto it = info.group_sizes.find(c.group.substr(3)); it != info.group_sizes.end()) return it->second;
  }
  return run.world_size;
}

std::vector<CollectiveStats> collectiveStats(const Run& run, const std::vector<std::vector<CollectiveEvent>>& per_rank,
                                             const std::vector<std::vector<ArrivalCause>>& causes_per_rank,
                                             const std::vector<MatchedCollective>& matched,
                                             const RunAlignment& alignment) {
  std::vector<CollectiveStats> out;
  out.reserve(matched.size());
  for (const MatchedCollective& m : matched) {
    CollectiveStats s;
    s.name = m.name;
    s.group = m.group;
    s.kind = m.kind;
    s.index = m.index;
    int64_t in_bytes = -1, out_bytes = -1;
    for (const CollectiveMember& member : m.members) {
      const CollectiveEvent& c = per_rank[member.rank_pos][member.event];
      const int64_t offset = alignment.offsets_ns[member.rank_pos];
      s.arrivals.push_back({member.rank_pos, run.ranks[member.rank_pos].rank, c.event, member.event,
                            c.start_ns + offset, c.end_ns + offset});
      in_bytes = std::max(in_bytes, c.in_bytes);
      out_bytes = std::max(out_bytes, c.out_bytes);
      if (!s.group_size) s.group_size = collectiveGroupSize(run, c, member.rank_pos);
    }
    s.start_ns = s.last_arrival_ns = s.arrivals.front().arrival_ns;
    s.end_ns = s.arrivals.front().end_ns;
    s.late_pos = s.arrivals.front().rank_pos;
    const CollectiveMember* late = &m.members.front();
    for (size_t i = 0; i < s.arrivals.size(); ++i) {
      const CollectiveArrival& a = s.arrivals[i];
      s.start_ns = std::min(s.start_ns, a.arrival_ns);
      s.end_ns = std::max(s.end_ns, a.end_ns);
      if (a.arrival_ns > s.last_arrival_ns) {
        s.last_arrival_ns = a.arrival_ns;
        s.late_pos = a.rank_pos;
        late = &m.members[i];
      }
    }
    s.late_rank = run.ranks[s.late_pos].rank;
    s.wait_ns = s.last_arrival_ns - s.start_ns;
    s.transfer_ns = std::max<int64_t>(0, s.end_ns - s.last_arrival_ns);
    s.bytes = collectiveBytes(s.kind, in_bytes, out_bytes, s.group_size);
    if (s.bytes > 0 && s.transfer_ns > 0) {
      s.algbw_gbps = double(s.bytes) / double(s.transfer_ns);
      if (auto factor = busBandwidthFactor(s.kind, s.group_size)) s.busbw_gbps = *s.algbw_gbps * *factor;
    }
    if (late->rank_pos < causes_per_rank.size() && late->event < causes_per_rank[late->rank_pos].size())
      s.late_rank_before = causes_per_rank[late->rank_pos][late->event];
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const CollectiveStats& a, const CollectiveStats& b) { return a.start_ns < b.start_ns; });
  return out;
}

}  // namespace fuselab
