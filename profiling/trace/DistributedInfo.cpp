#include "profiling/trace/DistributedInfo.h"

#include <cctype>
#include <nlohmann/json.hpp>

namespace fuselab {

namespace {

std::optional<int> smallInt(const nlohmann::json& v) {
  if (!v.is_number_integer()) return std::nullopt;
  const auto i = v.get<int64_t>();
  if (i < 0 || i > 1'000'000'000) return std::nullopt;
  return static_cast<int>(i);
}

void readGroups(const nlohmann::json& config, DistributedInfo& info) {
  if (!config.is_array()) return;
  for (const auto& pg : config) {
    if (!pg.is_object() || !pg.contains("pg_name")) continue;
    const auto& name_value = pg["pg_name"];
    const std::string name = name_value.is_string() ? name_value.get<std::string>() : name_value.dump();
    const auto ranks = pg.find("ranks");
    const auto size = pg.find("pg_size");
    std::optional<int> n = size != pg.end() ? smallInt(*size) : std::nullopt;
    if (ranks != pg.end()) {
      info.groups[name] = ranks->is_string() ? ranks->get<std::string>() : ranks->dump();
      if (!n && ranks->is_array()) n = static_cast<int>(ranks->size());
    } else if (n) {
      info.groups[name] = "size " + std::to_string(*n);
    }
    if (n) info.group_sizes[name] = *n;
  }
}

}  // namespace

DistributedInfo parseDistributedInfo(std::string_view json_object) {
  DistributedInfo info;
  const auto j = nlohmann::json::parse(json_object, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return info;
  info.present = true;
  if (auto it = j.find("rank"); it != j.end()) info.rank = smallInt(*it);
  if (auto it = j.find("world_size"); it != j.end()) info.world_size = smallInt(*it);
  if (auto it = j.find("backend"); it != j.end() && it->is_string()) info.backend = it->get<std::string>();
  if (auto it = j.find("pg_config"); it != j.end()) readGroups(*it, info);
  return info;
}

DistributedInfo distributedInfoOf(const Trace& trace) {
  for (const auto& [key, raw] : trace.meta.extra_fields)
    if (key == "distributedInfo") return parseDistributedInfo(raw);
  return {};
}

std::optional<int> rankFromFileName(std::string_view name) {
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  for (size_t at = 0; at + 4 <= name.size(); ++at) {
    if (lower(name[at]) != 'r' || lower(name[at + 1]) != 'a' || lower(name[at + 2]) != 'n' ||
        lower(name[at + 3]) != 'k')
      continue;
    // "rank" must start a word: "prank3" or "frank_1" are not ranks.
    if (at > 0 && std::isalnum(static_cast<unsigned char>(name[at - 1]))) continue;
    size_t digits = at + 4;
    if (digits < name.size() && (name[digits] == '-' || name[digits] == '_')) ++digits;
    size_t end = digits;
    while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
    if (end == digits || end - digits > 9) continue;
    // The number must end there: "rank3a" is not rank 3.
    if (end < name.size() && std::isalpha(static_cast<unsigned char>(name[end]))) continue;
    return std::stoi(std::string(name.substr(digits, end - digits)));
  }
  return std::nullopt;
}

}  // namespace fuselab
