// Asks LibTorch and the CUDA runtime what fuselab runs on.
#pragma once

#include "profiling/capture_api/SystemInfo.h"

namespace fuselab {

SystemInfo querySystemInfo();

}  // namespace fuselab
