// The memory lane's level of detail: a device's allocated and reserved bytes
// folded to one column per pixel, each the largest value in effect during
// its time, so that a million allocations draw as fast as a hundred (a max
// tree answers each column in O(log n)).
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/analysis/memory/MemorySummary.h"
#include "ui/layout/TimeAxis.h"

namespace fuselab::ui {

struct MemoryColumn {
  float x0 = 0, x1 = 0;  // screen x; neighbours with the same values are one column
  int64_t allocated = 0;
  int64_t reserved = 0;
};

class MemoryFolding {
 public:
  MemoryFolding() = default;
  explicit MemoryFolding(const MemoryCurve& curve);  // kept by reference

  // Columns from x0 to x1 (screen) of `axis`; none before the first event.
  std::vector<MemoryColumn> fold(const TimeAxis& axis, float x0, float x1) const;
  // The point in effect at time `ns` (the last at or before it), or -1.
  int64_t pointAt(double ns) const;
  int64_t maxReserved() const;
  int64_t maxAllocated() const;

 private:
  // Largest values over points [first, last).
  std::pair<int64_t, int64_t> maxOver(size_t first, size_t last) const;

  // Both maxima of a node side by side: a column's query reads each node once.
  struct Node {
    int64_t allocated = 0, reserved = 0;
  };
  const MemoryCurve* curve_ = nullptr;
  size_t leaves_ = 0;  // a power of two
  std::vector<Node> tree_;
};

}  // namespace fuselab::ui
