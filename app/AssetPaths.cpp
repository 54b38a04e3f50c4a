#include "app/AssetPaths.h"

#include <cstdlib>
#include <system_error>

namespace fuselab {

std::vector<std::filesystem::path> assetsSearchPath() {
  std::vector<std::filesystem::path> out;
  if (const char* env = std::getenv("FUSELAB_ASSETS_DIR"); env && *env) out.emplace_back(env);
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && exe.has_parent_path()) {
    out.push_back(exe.parent_path() / "assets");
    out.push_back(exe.parent_path().parent_path() / "share" / "fuselab" / "assets");
  }
  out.emplace_back(sourceTreeAssetsDir());
  return out;
}

std::filesystem::path findAssetsDir() {
  std::string tried;
  for (const auto& dir : assetsSearchPath()) {
    std::error_code ec;
    if (std::filesystem::is_directory(dir / "tutorial", ec)) return dir;
    tried += "\n  " + dir.string();
  }
  throw AssetsNotFound("cannot find fuselab's assets folder (with tutorial/ in it); looked in:" + tried +
                       "\nset FUSELAB_ASSETS_DIR to the assets/ folder of the fuselab sources");
}

std::filesystem::path tutorialPresetsDir() { return findAssetsDir() / "tutorial"; }

}  // namespace fuselab
