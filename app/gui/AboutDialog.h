// Help > About: fuselab, torch, CUDA and CUPTI versions, the GPU (or "no
// GPU"), and the OpenGL and Dear ImGui in use. Until a capture has loaded the
// capture module, it says where the module is and what it was built with
// (About does not load LibTorch for a version number).
#pragma once

#include <optional>
#include <string>

#include "profiling/capture_api/SystemInfo.h"

namespace fuselab {

class AboutDialog {
 public:
  void open() { open_requested_ = true; }
  void draw();

 private:
  bool open_requested_ = false;
  std::optional<SystemInfo> info_;  // asked of the loaded capture module (the CUDA runtime)
  std::string module_summary_;      // captureModuleSummary() until then
};

}  // namespace fuselab
