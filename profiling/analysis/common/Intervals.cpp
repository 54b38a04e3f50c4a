#include "profiling/analysis/common/Intervals.h"

#include <algorithm>

namespace fuselab {

int64_t unionLengthNs(std::vector<std::pair<int64_t, int64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  int64_t total = 0;
  bool open = false;
  int64_t cur_start = 0, cur_end = 0;
  for (const auto& [s, e] : intervals) {
    if (e <= s) continue;
    if (open && s <= cur_end) {
      cur_end = std::max(cur_end, e);
      continue;
    }
    if (open) total += cur_end - cur_start;
    cur_start = s, cur_end = e, open = true;
  }
  if (open) total += cur_end - cur_start;
  return total;
}

int64_t medianNs(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const int64_t upper = values[mid];
  if (values.size() % 2) return upper;
  const int64_t lower = *std::max_element(values.begin(), values.begin() + mid);
  return lower + (upper - lower) / 2;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

}  // namespace fuselab
