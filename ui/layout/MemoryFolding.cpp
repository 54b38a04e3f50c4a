#include "ui/layout/MemoryFolding.h"

#include <algorithm>
#include <cmath>

namespace fuselab::ui {

MemoryFolding::MemoryFolding(const MemoryCurve& curve) : curve_(&curve) {
  leaves_ = 1;
  while (leaves_ < curve.size()) leaves_ *= 2;
  tree_allocated_.assign(2 * leaves_, 0);
  tree_reserved_.assign(2 * leaves_, 0);
  for (size_t i = 0; i < curve.size(); ++i) {
    tree_allocated_[leaves_ + i] = curve.allocated[i];
    tree_reserved_[leaves_ + i] = curve.reserved[i];
  }
  for (size_t i = leaves_; i-- > 1;) {
    tree_allocated_[i] = std::max(tree_allocated_[2 * i], tree_allocated_[2 * i + 1]);
    tree_reserved_[i] = std::max(tree_reserved_[2 * i], tree_reserved_[2 * i + 1]);
  }
}

std::pair<int64_t, int64_t> MemoryFolding::maxOver(size_t first, size_t last) const {
  int64_t a = 0, r = 0;
  for (size_t lo = first + leaves_, hi = last + leaves_; lo < hi; lo /= 2, hi /= 2) {
    if (lo & 1) a = std::max(a, tree_allocated_[lo]), r = std::max(r, tree_reserved_[lo]), ++lo;
    if (hi & 1) --hi, a = std::max(a, tree_allocated_[hi]), r = std::max(r, tree_reserved_[hi]);
  }
  return {a, r};
}

int64_t MemoryFolding::pointAt(double ns) const {
  if (!curve_ || curve_->size() == 0) return -1;
  const auto& ts = curve_->ts_ns;
  const auto it = std::upper_bound(ts.begin(), ts.end(), ns, [](double v, int64_t t) { return v < double(t); });
  return it == ts.begin() ? -1 : int64_t(it - ts.begin()) - 1;
}

int64_t MemoryFolding::maxAllocated() const { return leaves_ ? tree_allocated_[1] : 0; }
int64_t MemoryFolding::maxReserved() const { return leaves_ ? tree_reserved_[1] : 0; }

std::vector<MemoryColumn> MemoryFolding::fold(const TimeAxis& axis, float x0, float x1) const {
  std::vector<MemoryColumn> out;
  if (!curve_ || curve_->size() == 0) return out;
  const auto& ts = curve_->ts_ns;
  const float first_x = std::max(x0, std::floor(axis.nsToX(double(ts.front()))));
  for (float x = first_x; x < x1; x += 1.0f) {
    const double t0 = axis.xToNs(x), t1 = axis.xToNs(x + 1);
    const int64_t in_effect = pointAt(t0);
    const size_t first = in_effect < 0 ? 0 : size_t(in_effect);
    const size_t last = size_t(std::lower_bound(ts.begin(), ts.end(), t1, [](int64_t t, double v) { return double(t) < v; }) - ts.begin());
    if (last <= first) continue;
    const auto [allocated, reserved] = maxOver(first, last);
    if (!out.empty() && out.back().x1 == x && out.back().allocated == allocated && out.back().reserved == reserved)
      out.back().x1 = x + 1;
    else
      out.push_back(MemoryColumn{x, x + 1, allocated, reserved});
  }
  return out;
}

}  // namespace fuselab::ui
