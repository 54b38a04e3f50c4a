#include "app/capture/NcclPluginPath.h"

#include "app/capture/BesideExecutable.h"

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

}  // namespace fuselab
