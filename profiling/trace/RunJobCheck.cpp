#include "profiling/trace/RunJobCheck.h"

#include <filesystem>
#include <map>

namespace fuselab {

namespace {

std::string fileName(const RankTrace& r) { return std::filesystem::path(r.file).filename().string(); }

std::string worldSizeText(const DistributedInfo& i) {
  return i.world_size ? std::to_string(*i.world_size) : std::string("unknown");
}

// Files that state a value, grouped by it; the value most files state (ties:
// the one of the lowest rank, as ranks are sorted) and the first file that
// states another one.
template <typename Get>
std::optional<std::string> majorityMismatch(const std::vector<RankTrace>& ranks, const char* what, Get get) {
  std::map<std::string, std::vector<const RankTrace*>> by_value;
  std::vector<std::string> order;
  for (const RankTrace& r : ranks) {
    if (!r.info.present) continue;
    const std::string value = get(r.info);
    if (value.empty()) continue;
    auto& files = by_value[value];
    if (files.empty()) order.push_back(value);
    files.push_back(&r);
  }
  if (by_value.size() < 2) return std::nullopt;
  std::string majority = order.front();
  for (const std::string& v : order)
    if (by_value[v].size() > by_value[majority].size()) majority = v;
  for (const RankTrace& r : ranks) {
    if (!r.info.present) continue;
    const std::string value = get(r.info);
    if (value.empty() || value == majority) continue;
    return fileName(r) + " is from another job: its " + what + " is " + value + " where " +
           fileName(*by_value[majority].front()) + (by_value[majority].size() > 1 ? " and others say " : " says ") +
           majority;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> findJobMismatch(const std::vector<RankTrace>& ranks) {
  if (auto m = majorityMismatch(ranks, "world_size", [](const DistributedInfo& i) {
        return i.world_size ? worldSizeText(i) : std::string();
      }))
    return m;
  if (auto m = majorityMismatch(ranks, "backend", [](const DistributedInfo& i) { return i.backend; })) return m;
  // A process group named in several files must have the same members.
  std::map<std::string, std::string> group_names;
  for (const RankTrace& r : ranks)
    for (const auto& [name, members] : r.info.groups) group_names.emplace(name, members);
  for (const auto& group : group_names) {
    const std::string& name = group.first;  // a plain reference: lambdas cannot capture structured bindings in clang 14
    const std::string what = "process group '" + name + "'";
    if (auto m = majorityMismatch(ranks, what.c_str(), [&name](const DistributedInfo& i) {
          auto it = i.groups.find(name);
          return it == i.groups.end() ? std::string() : it->second;
        }))
      return m;
  }
  return std::nullopt;
}

}  // namespace fuselab
