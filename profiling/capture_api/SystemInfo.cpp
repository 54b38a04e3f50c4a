#include "profiling/capture_api/SystemInfo.h"

#include <sstream>

namespace fuselab {

std::string versionReport(const SystemInfo& s) {
  std::ostringstream o;
  o << "fuselab " << s.fuselab_version << "\n"
    << "torch " << s.torch_version << "\n"
    << "CUDA runtime " << (s.cuda_runtime.empty() ? "not built in" : s.cuda_runtime) << "\n"
    << "CUPTI " << (s.cupti.empty() ? "not built in" : s.cupti) << "\n"
    << "GPU " << s.gpu;
  return o.str();
}

}  // namespace fuselab
