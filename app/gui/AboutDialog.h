// Help > About: fuselab, torch, CUDA and CUPTI versions, the GPU (or "no
// GPU"), and the OpenGL and Dear ImGui in use.
#pragma once

#include <optional>

#include "profiling/capture_api/SystemInfo.h"

namespace fuselab {

class AboutDialog {
 public:
  void open() { open_requested_ = true; }
  void draw();

 private:
  bool open_requested_ = false;
  std::optional<SystemInfo> info_;  // queried on first open (asks the CUDA runtime)
};

}  // namespace fuselab
