// Where fuselab's own shared libraries are looked for, in order: beside the
// executable (the build tree), in ../lib/fuselab/ (installed), then in the
// build tree's app/ folder `build_dir` (tests run from elsewhere; skipped
// when empty or already listed).
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

namespace fuselab {

std::vector<std::filesystem::path> besideExecutable(std::string_view file, std::string_view build_dir);

}  // namespace fuselab
