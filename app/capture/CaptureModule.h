// The capture module: libfuselab_capture_module.so (app/live/), the shared
// library with the workloads, the collectors, LibTorch, CUDA and CUPTI behind
// CaptureBackend. fuselab opens it when the first capture starts
// (captureBackend()), so reading and analysing traces never load them.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "profiling/capture_api/CaptureBackend.h"

namespace fuselab {

// Capture is not available: the module is not part of this build, is not
// found, or cannot be loaded (a library it needs is missing). The message
// says which, and names the file and what the loader said.
class CaptureUnavailable : public CaptureError {
 public:
  using CaptureError::CaptureError;
};

inline constexpr const char* kCaptureModuleFile = "libfuselab_capture_module.so";
inline constexpr const char* kCaptureModuleEnv = "FUSELAB_CAPTURE_MODULE";

// Where the module is looked for, in order: $FUSELAB_CAPTURE_MODULE (a file;
// when set, nothing else is tried), <executable dir>/, <executable
// dir>/../lib/fuselab/ (an installed build), then the build tree's app/ this
// build was configured for (as the assets are found, AssetPaths.h).
std::vector<std::filesystem::path> captureModuleCandidates();

// Opens `file` and returns its backend, which lives until the process ends
// (LibTorch cannot be unloaded). Throws CaptureUnavailable naming the file and
// the dynamic loader's message (a missing libtorch, libcudart, libcupti), or
// saying that the file is not a capture module of this fuselab.
CaptureBackend& openCaptureModule(const std::filesystem::path& file);

// Whether captureBackend() has loaded the module; asking loads nothing.
bool captureModuleLoaded();

// For --version, without loading the module: where it is and which torch,
// CUDA and CUPTI it was built with, or why there is none.
std::string captureModuleSummary();

}  // namespace fuselab
