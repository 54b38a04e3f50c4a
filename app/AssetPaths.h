// Where fuselab finds its runtime files (assets/: tutorial presets, ...).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace fuselab {

class AssetsNotFound : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Places searched for the assets folder, in order: $FUSELAB_ASSETS_DIR,
// <executable dir>/assets, <executable dir>/../share/fuselab/assets (an
// installed build), then the source tree's assets/ this build was configured
// from (sourceTreeAssetsDir()).
std::vector<std::filesystem::path> assetsSearchPath();

// The assets/ of the source tree this build was configured from: defined in a
// source generated at configure time (app/CMakeLists.txt), so that no other
// object is compiled with the path and clones elsewhere share ccache.
const char* sourceTreeAssetsDir();

// The first of assetsSearchPath() that holds a tutorial/ folder. Throws
// AssetsNotFound listing every place tried.
std::filesystem::path findAssetsDir();

// findAssetsDir() / "tutorial".
std::filesystem::path tutorialPresetsDir();

}  // namespace fuselab
