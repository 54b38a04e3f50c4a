#include "app/capture/NcclPluginPath.h"

#include <algorithm>

namespace fuselab {

std::vector<std::filesystem::path> ncclPluginCandidates() {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && exe.has_parent_path()) {
    out.push_back(exe.parent_path() / kNcclPluginFile);
    out.push_back(exe.parent_path().parent_path() / "lib" / "fuselab" / kNcclPluginFile);
  }
#ifdef FUSELAB_APP_BUILD_DIR
  const auto built = std::filesystem::path(FUSELAB_APP_BUILD_DIR) / kNcclPluginFile;
  if (std::find(out.begin(), out.end(), built) == out.end()) out.push_back(built);
#endif
  return out;
}

std::optional<std::filesystem::path> findNcclPlugin() {
  for (const auto& file : ncclPluginCandidates()) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(file, ec)) return std::filesystem::absolute(file, ec);
  }
  return std::nullopt;
}

}  // namespace fuselab
