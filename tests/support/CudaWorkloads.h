// The GPU tests' starting point: a workload's defaults on CUDA in bf16.
#pragma once

#include <stdexcept>
#include <string>

#include "kernels/WorkloadRegistry.h"

namespace fuselab::test {

inline WorkloadParams cudaBf16Defaults(const std::string& name) {
  for (const auto& info : listWorkloads())
    if (info.name == name) {
      WorkloadParams p = info.defaults;
      p.device = Device::Cuda;
      p.dtype = DType::BF16;
      return p;
    }
  throw std::runtime_error("no workload " + name);
}

}  // namespace fuselab::test
