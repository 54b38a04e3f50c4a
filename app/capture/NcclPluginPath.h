// Where fuselab's NCCL profiler plugin (libfuselab_nccl_profiler.so) is:
// beside the executable (the build tree), in ../lib/fuselab/ (installed:
// the .deb and the wheel), or in the build tree this executable came from.
// `fuselab --nccl-plugin-path` prints it for NCCL_PROFILER_PLUGIN.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fuselab {

inline constexpr const char* kNcclPluginFile = "libfuselab_nccl_profiler.so";

std::vector<std::filesystem::path> ncclPluginCandidates();

// The first candidate that exists.
std::optional<std::filesystem::path> findNcclPlugin();

// What a rank's environment needs to load the plugin and write its side
// file into `folder` (beside its trace): NCCL_PROFILER_PLUGIN and
// FUSELAB_NCCL_PROFILER_DIR; nothing when the user set a plugin of their
// own (NCCL_PROFILER_PLUGIN, "none" included) or it is not installed.
std::vector<std::pair<std::string, std::string>> ncclProfilerEnv(const std::filesystem::path& folder);

}  // namespace fuselab
