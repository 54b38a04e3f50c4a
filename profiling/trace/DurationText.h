// Human-readable durations and shares for analysis messages and reports.
#pragma once

#include <cstdint>
#include <string>

namespace fuselab {

// "850 ns", "12.4 us", "1.78 ms", "2.05 s".
std::string formatDuration(int64_t ns);
// 0.1234 -> "12.3%".
std::string formatPercent(double fraction);
// A change, rounded to a whole percent: -0.314 -> "-31%", 0.05 -> "+5%", 0 -> "0%".
std::string formatSignedPercent(double change);

}  // namespace fuselab
