// Small interval and statistics helpers of the analyses.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace fuselab {

// [start, end) pairs.
using Intervals = std::vector<std::pair<int64_t, int64_t>>;

// Length of the union of [start, end) intervals (any order, may overlap).
int64_t unionLengthNs(std::vector<std::pair<int64_t, int64_t>> intervals);

// Median of the values (the mean of the middle two for an even count); 0 when empty.
int64_t medianNs(std::vector<int64_t> values);
double median(std::vector<double> values);

}  // namespace fuselab
