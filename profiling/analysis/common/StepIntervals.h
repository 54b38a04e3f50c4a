// The step (or any interval) containing a time, in O(log n): for intervals
// sorted by start, possibly overlapping or nested, the first one (in that
// order) with start <= time <= end. Used once per GPU op, so a linear scan
// would make the analysis quadratic (steps x GPU ops).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace fuselab {

class StepIntervals {
 public:
  // (start, end) pairs, sorted by start (ties in any order).
  explicit StepIntervals(std::vector<std::pair<int64_t, int64_t>> sorted_by_start);

  // Index of the first interval with start <= time <= end, or nullopt.
  std::optional<size_t> firstContaining(int64_t time) const;

  bool empty() const { return starts_.empty(); }

 private:
  std::vector<int64_t> starts_;
  std::vector<int64_t> prefix_end_;  // prefix_end_[j]: latest end among intervals 0..j
};

}  // namespace fuselab
