// Small rank trace files for the run tests: a Kineto JSON object with an
// optional distributedInfo and a few events, written into a test folder.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace fuselab::test {

inline nlohmann::json distributedInfo(int rank, int world_size, const std::string& backend = "nccl") {
  nlohmann::json pg = {{"pg_name", "0"}, {"pg_desc", "default_pg"}, {"pg_size", world_size}};
  pg["ranks"] = nlohmann::json::array();
  for (int r = 0; r < world_size; ++r) pg["ranks"].push_back(r);
  return {{"backend", backend}, {"rank", rank}, {"world_size", world_size}, {"pg_config", {pg}}};
}

// One CPU op so the trace is not empty; `info` null leaves distributedInfo out.
inline nlohmann::json rankTraceJson(const nlohmann::json& info) {
  nlohmann::json j = {{"schemaVersion", 1},
                      {"traceEvents",
                       {{{"ph", "X"}, {"cat", "cpu_op"}, {"name", "aten::mm"}, {"pid", 1}, {"tid", 1},
                         {"ts", 100.0}, {"dur", 5.0}}}}};
  if (!info.is_null()) j["distributedInfo"] = info;
  return j;
}

inline std::filesystem::path writeText(const std::filesystem::path& dir, const std::string& name,
                                       const std::string& text) {
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path;
}

inline std::filesystem::path writeRankFile(const std::filesystem::path& dir, const std::string& name,
                                           const nlohmann::json& info) {
  return writeText(dir, name, rankTraceJson(info).dump());
}

}  // namespace fuselab::test
