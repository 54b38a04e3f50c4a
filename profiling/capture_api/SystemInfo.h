// Versions of what fuselab captures with (torch, CUDA, CUPTI, GPU), for
// Help > About. Filled by the capture backend (it asks LibTorch and the CUDA
// runtime).
#pragma once

#include <string>

namespace fuselab {

struct SystemInfo {
  std::string fuselab_version;
  std::string torch_version;
  std::string cuda_runtime;  // "" when built without CUDA
  std::string cupti;         // "" when built without CUPTI
  std::string gpu;           // GPU name, or "no GPU"
};

}  // namespace fuselab
