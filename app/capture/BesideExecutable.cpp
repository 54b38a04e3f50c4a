#include "app/capture/BesideExecutable.h"

#include <algorithm>
#include <system_error>

namespace fuselab {

std::vector<std::filesystem::path> besideExecutable(std::string_view file, std::string_view build_dir) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && exe.has_parent_path()) {
    out.push_back(exe.parent_path() / file);
    out.push_back(exe.parent_path().parent_path() / "lib" / "fuselab" / file);
  }
  if (!build_dir.empty()) {
    const auto built = std::filesystem::path(build_dir) / file;
    if (std::find(out.begin(), out.end(), built) == out.end()) out.push_back(built);
  }
  return out;
}

}  // namespace fuselab
