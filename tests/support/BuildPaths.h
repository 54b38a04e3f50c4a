// Where this build is: its source and build folders, the project's Python
// and the shared fixtures. Defined in one source generated at configure time
// (scripts/cmake/FuselabBuildPaths.cmake), so that no other object is
// compiled with an absolute path and clones in other folders share ccache.
#pragma once

namespace fuselab::build_paths {

const char* sourceDir();
const char* binaryDir();
const char* fixturesDir();  // ../shared/fixtures/kineto-h100-torch2.11
const char* pythonExe();    // FUSELAB_PYTHON: the .venv's, with torch and HTA

}  // namespace fuselab::build_paths
