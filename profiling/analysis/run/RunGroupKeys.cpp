#include "profiling/analysis/run/RunGroupKeys.h"

#include <map>
#include <set>

#include "profiling/trace/DistributedInfo.h"

namespace fuselab {

namespace {

bool streamKeyed(const CollectiveEvent& c) { return c.on_gpu && c.group.starts_with("stream "); }

// The stream keys of each rank that has any.
std::vector<std::set<std::string>> streamKeysPerRank(const std::vector<std::vector<CollectiveEvent>>& per_rank) {
  std::vector<std::set<std::string>> out;
  for (const auto& events : per_rank) {
    std::set<std::string> keys;
    for (const CollectiveEvent& c : events)
      if (streamKeyed(c)) keys.insert(c.group);
    if (!keys.empty()) out.push_back(std::move(keys));
  }
  return out;
}

bool streamKeysAgree(const std::vector<std::set<std::string>>& keys) {
  for (const auto& a : keys)
    for (const auto& b : keys)
      for (const std::string& k : a)
        if (!b.contains(k)) return false;
  return true;
}

}  // namespace

void keyUnnamedGroups(const Run& run, std::vector<std::vector<CollectiveEvent>>& per_rank) {
  if (streamKeysAgree(streamKeysPerRank(per_rank))) return;
  for (size_t r = 0; r < per_rank.size() && r < run.ranks.size(); ++r) {
    const auto& groups = run.ranks[r].info.groups;
    const std::string only_group = groups.size() == 1 ? "pg " + groups.begin()->first : std::string();
    std::map<std::string, size_t> stream_order;  // old key -> order of first use (events are by start)
    for (CollectiveEvent& c : per_rank[r]) {
      if (!streamKeyed(c)) continue;
      if (!only_group.empty()) {
        c.group = only_group;
        continue;
      }
      auto it = stream_order.emplace(c.group, stream_order.size()).first;
      c.group = "comm stream " + std::to_string(it->second);
    }
  }
}

}  // namespace fuselab
