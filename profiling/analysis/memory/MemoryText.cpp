#include "profiling/analysis/memory/MemoryText.h"

#include <cstdio>
#include <cmath>

namespace fuselab {

std::string formatMemoryBytes(int64_t bytes) {
  const double magnitude = std::fabs(double(bytes));
  const char* sign = bytes < 0 ? "-" : "";
  char buf[48];
  if (magnitude >= 1e9) std::snprintf(buf, sizeof buf, "%s%.2f GB", sign, magnitude / 1e9);
  else if (magnitude >= 1e6) std::snprintf(buf, sizeof buf, "%s%.2f MB", sign, magnitude / 1e6);
  else if (magnitude >= 1e3) std::snprintf(buf, sizeof buf, "%s%.1f kB", sign, magnitude / 1e3);
  else std::snprintf(buf, sizeof buf, "%s%.0f B", sign, magnitude);
  return buf;
}

}  // namespace fuselab
