#include "profiling/analysis/run/RunNccl.h"

#include <algorithm>
#include <map>

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
      std::sort(durations.begin(), durations.end());
      f.channel_min_ns = durations.front();
      f.channel_median_ns = durations[durations.size() / 2];
      f.channel_max_ns = durations.back();
    }
    s.nccl = f;
  }
}

std::vector<std::string> ncclNotes(const std::vector<CollectiveStats>& collectives) {
  std::map<CollectiveKind, int> most_channels;
  for (const CollectiveStats& s : collectives)
    if (s.nccl) most_channels[s.kind] = std::max(most_channels[s.kind], s.nccl->channels);
  struct Finding {
    size_t count = 0;
    int64_t smallest = INT64_MAX, largest = 0;
    std::string detail;
  };
  std::map<std::string, Finding> found;  // by sentence head, in a stable order
  auto note = [&](const std::string& head, const CollectiveStats& s, const std::string& detail) {
    Finding& f = found[head];
    ++f.count;
    f.smallest = std::min(f.smallest, s.bytes);
    f.largest = std::max(f.largest, s.bytes);
    f.detail = detail;
  };
  for (const CollectiveStats& s : collectives) {
    if (!s.nccl || s.bytes < 0) continue;
    const std::string kind(collectiveKindName(s.kind));
    const int most = most_channels[s.kind];
    if (s.bytes >= kFewChannelsBytes && s.nccl->channels > 0 && 2 * s.nccl->channels <= most)
      note(kind + " on " + std::to_string(s.nccl->channels) + " channel(s)", s,
           "the run's largest " + kind + " used " + std::to_string(most));
    if (s.nccl->proto == "LL" && s.bytes >= kLargeBytes)
      note(kind + " on the LL protocol", s, "LL carries a flag in every 8 bytes, at most half the link's bandwidth");
    if (s.nccl->proto == "Simple" && s.bytes <= kSmallBytes)
      note(kind + " on the Simple protocol", s, "small messages are latency-bound; LL or LL128 cost fewer handshakes");
  }
  std::vector<std::string> out;
  for (const auto& [head, f] : found) {
    const std::string sizes = f.smallest == f.largest ? formatBytes(uint64_t(f.smallest))
                                                      : formatBytes(uint64_t(f.smallest)) + " to " + formatBytes(uint64_t(f.largest));
    out.push_back("NCCL ran " + std::to_string(f.count) + " " + head + " (" + sizes + "): " + f.detail + ".");
  }
  return out;
}

}  // namespace fuselab
