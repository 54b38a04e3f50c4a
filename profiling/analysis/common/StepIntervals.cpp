// StepIntervals (StepIntervals.h): binary searches over the starts and over
// the running maximum of the ends.
#include "profiling/analysis/common/StepIntervals.h"

#include <algorithm>

namespace fuselab {

StepIntervals::StepIntervals(std::vector<std::pair<int64_t, int64_t>> sorted_by_start) {
  starts_.reserve(sorted_by_start.size());
  prefix_end_.reserve(sorted_by_start.size());
  for (const auto& [start, end] : sorted_by_start) {
    starts_.push_back(start);
    prefix_end_.push_back(prefix_end_.empty() ? end : std::max(prefix_end_.back(), end));
  }
}

std::optional<size_t> StepIntervals::firstContaining(int64_t time) const {
  // Intervals [0, n) start at or before `time`; the first j whose running
  // maximum end reaches `time` is the first of them that contains it (every
  // earlier one ends before `time`, and j's own end is that maximum).
  const size_t n = size_t(std::upper_bound(starts_.begin(), starts_.end(), time) - starts_.begin());
  const auto j = std::lower_bound(prefix_end_.begin(), prefix_end_.begin() + ptrdiff_t(n), time);
  if (j == prefix_end_.begin() + ptrdiff_t(n)) return std::nullopt;
  return size_t(j - prefix_end_.begin());
}

}  // namespace fuselab
