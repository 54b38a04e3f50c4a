#include "app/capture/GpuProbe.h"

#include <filesystem>
#include <system_error>

namespace fuselab {

bool nvidiaGpuVisible() {
  std::error_code ec;
  if (!std::filesystem::is_empty("/proc/driver/nvidia/gpus", ec) && !ec) return true;
  return std::filesystem::exists("/dev/dxg", ec);
}

}  // namespace fuselab
