#include "profiling/capture/SystemQuery.h"

#include <torch/version.h>
#include <ATen/Context.h>

#ifdef FUSELAB_HAVE_CUPTI
#include <cuda_runtime_api.h>
#include <cupti.h>
#endif

namespace fuselab {

SystemInfo querySystemInfo() {
  SystemInfo s;
  s.fuselab_version = FUSELAB_VERSION;
  s.torch_version = TORCH_VERSION;
  s.gpu = "no GPU";
#ifdef FUSELAB_HAVE_CUPTI
  int rt = 0;
  if (cudaRuntimeGetVersion(&rt) == cudaSuccess)
    s.cuda_runtime = std::to_string(rt / 1000) + "." + std::to_string((rt % 1000) / 10);
  uint32_t cupti = 0;
  if (cuptiGetVersion(&cupti) == CUPTI_SUCCESS) s.cupti = "API " + std::to_string(cupti);
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
      s.gpu = std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ")";
  } else {
    cudaGetLastError();  // clear the "no device" error
  }
#endif
  return s;
}

}  // namespace fuselab
