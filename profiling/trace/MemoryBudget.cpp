#include "profiling/trace/MemoryBudget.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace fuselab {

namespace {

std::optional<uint64_t> readNumberFile(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max") return std::nullopt;
  return parseByteSize(word);
}

std::optional<uint64_t> memAvailable() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    uint64_t kb = 0;
    if (fields >> kb) return kb * 1024;
  }
  return std::nullopt;
}

// What the cgroup this process is in still allows (v2, then v1).
std::optional<uint64_t> cgroupHeadroom() {
  std::ifstream self("/proc/self/cgroup");
  std::string line, v2_path;
  while (std::getline(self, line))
    if (line.rfind("0::", 0) == 0) v2_path = line.substr(3);
  const std::pair<std::string, std::string> candidates[] = {
      {"/sys/fs/cgroup" + v2_path + "/memory.max", "/sys/fs/cgroup" + v2_path + "/memory.current"},
      {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
      {"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"},
  };
  for (const auto& [limit_path, usage_path] : candidates) {
    auto limit = readNumberFile(limit_path);
    if (!limit || *limit >= (uint64_t(1) << 60)) continue;  // "max" or v1's "no limit"
    uint64_t used = readNumberFile(usage_path).value_or(0);
    return used < *limit ? *limit - used : 0;
  }
  return std::nullopt;
}

}  // namespace

std::optional<uint64_t> parseByteSize(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::string s(text);
  char* end = nullptr;
  double value = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !std::isfinite(value) || value < 0) return std::nullopt;
  std::string_view unit(end);
  double scale = 1;
  if (unit == "" || unit == "B") scale = 1;
  else if (unit == "K" || unit == "k" || unit == "KB" || unit == "kB") scale = 1e3;
  else if (unit == "M" || unit == "MB") scale = 1e6;
  else if (unit == "G" || unit == "GB") scale = 1e9;
  else if (unit == "T" || unit == "TB") scale = 1e12;
  else return std::nullopt;
  double bytes = value * scale;
  if (bytes >= 1.8e19) return std::nullopt;
  return static_cast<uint64_t>(bytes);
}

std::optional<AvailableMemory> availableMemory() {
  if (const char* env = std::getenv("FUSELAB_AVAILABLE_MEMORY"); env && *env) {
    if (auto bytes = parseByteSize(env)) return AvailableMemory{*bytes, "FUSELAB_AVAILABLE_MEMORY"};
  }
  auto avail = memAvailable();
  auto cgroup = cgroupHeadroom();
  if (cgroup && (!avail || *cgroup < *avail)) return AvailableMemory{*cgroup, "the cgroup memory limit"};
  if (avail) return AvailableMemory{*avail, "MemAvailable in /proc/meminfo"};
  return std::nullopt;
}

uint64_t importPeakEstimate(uint64_t json_bytes, bool every_args) {
  // Measured on Kineto traces (bench/profiling_import): the kept args text is
  // about half the JSON, the event columns about a fifth; 64 MB of windows.
  // A 396 MB rank of the generated run (bench/LargeRun.h) peaked at 314 MB
  // with every args, 149-169 MB with a collective's only (VM).
  return json_bytes / 10 * (every_args ? 8 : 3) + (uint64_t(64) << 20);
}

std::string formatBytes(uint64_t bytes) {
  char buf[32];
  double b = double(bytes);
  if (b >= 1e9) std::snprintf(buf, sizeof(buf), "%.1f GB", b / 1e9);
  else if (b >= 1e6) std::snprintf(buf, sizeof(buf), "%.0f MB", b / 1e6);
  else std::snprintf(buf, sizeof(buf), "%.0f kB", b / 1e3);
  return buf;
}

}  // namespace fuselab
