#include "profiling/trace/DurationText.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace fuselab {

std::string formatDuration(int64_t ns) {
  char buf[48];
  const int64_t mag = std::llabs(ns);
  if (mag < 1'000)
    std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
  else if (mag < 1'000'000)
    std::snprintf(buf, sizeof buf, "%.1f us", double(ns) / 1e3);
  else if (mag < 1'000'000'000)
    std::snprintf(buf, sizeof buf, "%.2f ms", double(ns) / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", double(ns) / 1e9);
  return buf;
}

std::string formatPercent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
  return buf;
}

std::string formatSignedPercent(double change) {
  const long pct = std::lround(change * 100);
  return (pct > 0 ? "+" : "") + std::to_string(pct) + "%";
}

}  // namespace fuselab
