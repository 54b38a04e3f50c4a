// A run for the benchmarks: rank 0 of the HTA NCCL fixture copied to
// `ranks` files in `dir`, each with its own distributedInfo.rank and its
// clock moved by up to 0.6 ms.
#pragma once

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/TiledTrace.h"
#include "tests/support/BuildPaths.h"

namespace fuselab::bench {

inline std::vector<std::filesystem::path> writeTiledRun(const std::filesystem::path& dir, int ranks) {
  namespace fs = std::filesystem;
  const fs::path fixture = fs::path(fuselab::build_paths::fixturesDir()).parent_path() / "kineto-multirank-hta" / "rank-0.json.gz";
  const nlohmann::json base = nlohmann::json::parse(gunzipFile(fixture.string()));
  fs::create_directories(dir);
  std::vector<fs::path> paths;
  for (int r = 0; r < ranks; ++r) {
    nlohmann::json j = base;
    j["distributedInfo"]["rank"] = r;
    const double shift_us = (r * 37) % 600;  // each rank's clock a little off
    for (auto& e : j["traceEvents"])
      if (e.contains("ts") && e["ts"].is_number()) e["ts"] = e["ts"].get<double>() + shift_us;
    paths.push_back(dir / ("rank-" + std::to_string(r) + ".json"));
    std::ofstream(paths.back()) << j.dump();
  }
  return paths;
}

}  // namespace fuselab::bench
