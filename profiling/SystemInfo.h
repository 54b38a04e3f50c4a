// Versions of what fuselab runs on (torch, CUDA, CUPTI, GPU), for --version
// and Help > About.
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

SystemInfo systemInfo();
std::string versionReport();  // multi-line text of the above

}  // namespace fuselab
