// std::sort on every core (ParallelFor.h): chunks sorted side by side, then
// merged pairwise, the pairs of each round side by side. `less` must be a
// strict total order (ties broken), so the result equals std::sort's.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <vector>

#include "profiling/trace/ParallelFor.h"

namespace fuselab {

template <typename T, typename Less>
void parallelSort(std::vector<T>& v, Less less) {
  constexpr size_t kMinChunk = size_t(1) << 16;  // smaller sorts gain nothing from the split
  const size_t n = v.size();
  const size_t chunks = std::min<size_t>(std::bit_floor(std::max<size_t>(1, n / kMinChunk)), 64);
  if (chunks < 2) {
    std::sort(v.begin(), v.end(), less);
    return;
  }
  auto bound = [&](size_t c) { return v.begin() + static_cast<std::ptrdiff_t>(n * c / chunks); };
  parallelFor(chunks, [&](size_t c) { std::sort(bound(c), bound(c + 1), less); });
  for (size_t width = 1; width < chunks; width *= 2)
    parallelFor(chunks / (2 * width), [&](size_t p) {
      std::inplace_merge(bound(2 * width * p), bound(2 * width * p + width), bound(2 * width * (p + 1)), less);
    });
}

}  // namespace fuselab
