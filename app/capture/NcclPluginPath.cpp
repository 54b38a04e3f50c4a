#include "app/capture/NcclPluginPath.h"

#include "app/capture/BesideExecutable.h"

#include <cstdlib>

namespace fuselab {

std::vector<std::filesystem::path> ncclPluginCandidates() {
#ifdef FUSELAB_APP_BUILD_DIR
  return besideExecutable(kNcclPluginFile, FUSELAB_APP_BUILD_DIR);
#else
  return besideExecutable(kNcclPluginFile, "");
#endif
}

std::optional<std::filesystem::path> findNcclPlugin() {
  for (const auto& file : ncclPluginCandidates()) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(file, ec)) return std::filesystem::absolute(file, ec);
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> ncclProfilerEnv(const std::filesystem::path& folder) {
  if (const char* own = std::getenv("NCCL_PROFILER_PLUGIN"); own && *own) return {};
  const auto plugin = findNcclPlugin();
  if (!plugin) return {};
  std::error_code ec;
  return {{"NCCL_PROFILER_PLUGIN", plugin->string()},
          {"FUSELAB_NCCL_PROFILER_DIR", std::filesystem::absolute(folder, ec).string()}};
}

}  // namespace fuselab
