// Where fuselab's NCCL profiler plugin (libfuselab_nccl_profiler.so) is:
// beside the executable (the build tree), in ../lib/fuselab/ (installed:
// the .deb and the wheel), or in the build tree this executable came from.
// `fuselab --nccl-plugin-path` prints it for NCCL_PROFILER_PLUGIN.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

namespace fuselab {

inline constexpr const char* kNcclPluginFile = "libfuselab_nccl_profiler.so";

std::vector<std::filesystem::path> ncclPluginCandidates();

// The first candidate that exists.
std::optional<std::filesystem::path> findNcclPlugin();

}  // namespace fuselab
