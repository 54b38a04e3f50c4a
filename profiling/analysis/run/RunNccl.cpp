#include "profiling/analysis/run/RunNccl.h"

#include <algorithm>
#include <map>

#include "profiling/analysis/common/Intervals.h"
#include "profiling/trace/MemoryBudget.h"

namespace fuselab {

std::vector<RankNcclJoin> joinRunNccl(const Run& run, const std::vector<std::vector<CollectiveEvent>>& per_rank) {
  std::vector<RankNcclJoin> out(run.ranks.size());
  for (size_t r = 0; r < run.ranks.size() && r < per_rank.size(); ++r)
    if (run.ranks[r].nccl) out[r] = joinNcclProfile(per_rank[r], *run.ranks[r].nccl, run.ranks[r].rank);
  return out;
}

void addNcclFigures(std::vector<CollectiveStats>& collectives, const std::vector<RankNcclJoin>& joins) {
  for (CollectiveStats& s : collectives) {
    s.nccl.reset();
    NcclCollectiveFigures f;
    std::vector<int64_t> durations;
    for (const CollectiveArrival& a : s.arrivals) {
      if (a.rank_pos >= joins.size() || a.index >= joins[a.rank_pos].details.size()) continue;
      const std::optional<NcclCollectiveDetail>& d = joins[a.rank_pos].details[a.index];
      if (!d) continue;
      if (f.ranks_joined++ == 0) f.algo = d->algo, f.proto = d->proto;
      f.channels = std::max(f.channels, d->channels);
      f.warps = std::max(f.warps, d->warps);
      for (const NcclChannelTime& t : d->channel_times) durations.push_back(t.stop_ns - t.start_ns);
      if (!d->channel_times.empty())
        f.channel_spread_ns =
            std::max(f.channel_spread_ns, d->channel_times.back().start_ns - d->channel_times.front().start_ns);
    }
    if (f.ranks_joined == 0) continue;
    if (!durations.empty()) {
      const auto [lo, hi] = std::minmax_element(durations.begin(), durations.end());
      f.channel_min_ns = *lo;
      f.channel_max_ns = *hi;
      f.channel_median_ns = medianNs(std::move(durations));
    }
    s.nccl = f;
  }
}

std::vector<std::string> ncclNotes(const std::vector<CollectiveStats>& collectives) {
  std::map<CollectiveKind, int> most_channels;
  for (const CollectiveStats& s : collectives)
    if (s.nccl) most_channels[s.kind] = std::max(most_channels[s.kind], s.nccl->channels);
  struct Sizes {
    size_t count = 0;
    int64_t smallest = INT64_MAX, largest = 0;
  };
  // Finding -> kind -> the sizes it was seen at; the finding's reason.
  std::map<std::string, std::map<std::string, Sizes>> found;
  std::map<std::string, std::string> reason;
  auto note = [&](const std::string& finding, const std::string& why, const CollectiveStats& s, std::string kind) {
    Sizes& z = found[finding][std::move(kind)];
    ++z.count;
    z.smallest = std::min(z.smallest, s.bytes);
    z.largest = std::max(z.largest, s.bytes);
    reason[finding] = why;
  };
  for (const CollectiveStats& s : collectives) {
    if (!s.nccl || s.bytes < 0) continue;
    const std::string kind(collectiveKindName(s.kind));
    const int most = most_channels[s.kind];
    if (s.bytes >= kFewChannelsBytes && s.nccl->channels > 0 && 2 * s.nccl->channels <= most)
      note("on " + std::to_string(s.nccl->channels) + " channel(s)",
           "the run's largest of the kind used " + std::to_string(most), s, kind);
    if (s.nccl->proto == "LL" && s.bytes >= kLargeBytes)
      note("on the LL protocol", "LL carries a flag in every 8 bytes, at most half the link's bandwidth", s, kind);
    if (s.nccl->proto == "Simple" && s.bytes <= kSmallBytes)
      note("on the Simple protocol", "small messages are latency-bound, where LL and LL128 wait less", s, kind);
  }
  std::vector<std::string> out;
  for (const auto& [finding, kinds] : found) {
    std::string list;
    for (const auto& [kind, z] : kinds) {
      const std::string sizes = z.smallest == z.largest
                                    ? formatBytes(uint64_t(z.smallest))
                                    : formatBytes(uint64_t(z.smallest)) + " to " + formatBytes(uint64_t(z.largest));
      list += (list.empty() ? "" : ", ") + std::to_string(z.count) + " " + kind + " of " + sizes;
    }
    out.push_back("NCCL ran " + list + " " + finding + ": " + reason[finding] + ".");
  }
  return out;
}

}  // namespace fuselab
