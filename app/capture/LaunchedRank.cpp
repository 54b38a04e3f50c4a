#include "app/capture/LaunchedRank.h"

#include <charconv>
#include <cstdlib>
#include <stdexcept>

namespace fuselab {

namespace {

std::optional<int> envInt(const char* name, int min, int max) {
  const char* text = std::getenv(name);
  if (!text || !*text) return std::nullopt;
  const std::string s(text);
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < min || v > max)
    throw std::runtime_error(std::string(name) + " must be an integer from " + std::to_string(min) + " to " +
                             std::to_string(max) + ", got '" + s + "'");
  return v;
}

}  // namespace

std::optional<LaunchedRank> launchedRankFromEnvironment() {
  constexpr int kMaxRanks = 1 << 20;
  const auto world = envInt("WORLD_SIZE", 1, kMaxRanks);
  const auto rank = envInt("RANK", 0, kMaxRanks - 1);
  if (!world && !rank) return std::nullopt;
  if (!world || !rank) throw std::runtime_error("RANK and WORLD_SIZE must be set together (as torchrun sets them)");
  if (*rank >= *world)
    throw std::runtime_error("RANK " + std::to_string(*rank) + " is not below WORLD_SIZE " + std::to_string(*world));
  return LaunchedRank{*rank, *world};
}

std::filesystem::path launchedRankTraceFile(const std::string& dir, const LaunchedRank& rank) {
  if (dir.empty())
    throw std::runtime_error("a rank started by a launcher (RANK and WORLD_SIZE set) needs --out DIR: the run "
                             "folder every rank writes its trace into");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw std::runtime_error("cannot use " + dir + " as the run folder" + (ec ? ": " + ec.message() : ""));
  const auto file = std::filesystem::path(dir) / ("rank-" + std::to_string(rank.rank) + ".json.gz");
  if (std::filesystem::exists(file))
    throw std::runtime_error(file.string() + " exists (an earlier run's): give each run its own --out folder");
  return file;
}

}  // namespace fuselab
