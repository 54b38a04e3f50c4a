#include "ui/layout/MemoryFolding.h"

#include <algorithm>
#include <cmath>

namespace fuselab::ui {

MemoryFolding::MemoryFolding(const MemoryCurve& curve) : curve_(&curve) {
  leaves_ = 1;
  while (leaves_ < curve.size()) leaves_ *= 2;
  tree_.assign(2 * leaves_, Node{});
  for (size_t i = 0; i < curve.size(); ++i) tree_[leaves_ + i] = {curve.allocated[i], curve.reserved[i]};
  for (size_t i = leaves_; i-- > 1;)
    tree_[i] = {std::max(tree_[2 * i].allocated, tree_[2 * i + 1].allocated),
                std::max(tree_[2 * i].reserved, tree_[2 * i + 1].reserved)};
}

std::pair<int64_t, int64_t> MemoryFolding::maxOver(size_t first, size_t last) const {
  int64_t a = 0, r = 0;
  auto take = [&](const Node& n) { a = std::max(a, n.allocated), r = std::max(r, n.reserved); };
  for (size_t lo = first + leaves_, hi = last + leaves_; lo < hi; lo /= 2, hi /= 2) {
    if (lo & 1) take(tree_[lo++]);
    if (hi & 1) take(tree_[--hi]);
  }
  return {a, r};
}

int64_t MemoryFolding::pointAt(double ns) const {
  if (!curve_ || curve_->size() == 0) return -1;
  const auto& ts = curve_->ts_ns;
  const auto it = std::upper_bound(ts.begin(), ts.end(), ns, [](double v, int64_t t) { return v < double(t); });
  return it == ts.begin() ? -1 : int64_t(it - ts.begin()) - 1;
}

int64_t MemoryFolding::maxAllocated() const { return leaves_ ? tree_[1].allocated : 0; }
int64_t MemoryFolding::maxReserved() const { return leaves_ ? tree_[1].reserved : 0; }

namespace {

// The first index at or after `from` whose time is `past` (all before it are
// not), galloping from `from`: the columns walk forward in time, so a search
// spans about one column's points instead of the whole curve, which keeps a
// frame of 1M events near one of 1k.
template <class Past>
size_t firstPast(const std::vector<int64_t>& ts, size_t from, Past past) {
  size_t lo = from, hi = from, step = 1;
  while (hi < ts.size() && !past(ts[hi])) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  hi = std::min(hi, ts.size());
  return size_t(std::partition_point(ts.begin() + lo, ts.begin() + hi, [&](int64_t t) { return !past(t); }) -
                ts.begin());
}

}  // namespace

std::vector<MemoryColumn> MemoryFolding::fold(const TimeAxis& axis, float x0, float x1) const {
  std::vector<MemoryColumn> out;
  if (!curve_ || curve_->size() == 0) return out;
  const auto& ts = curve_->ts_ns;
  const float first_x = std::max(x0, std::floor(axis.nsToX(double(ts.front()))));
  size_t after_t0 = 0;  // the first point later than the column's start
  for (float x = first_x; x < x1; x += 1.0f) {
    const double t0 = axis.xToNs(x), t1 = axis.xToNs(x + 1);
    after_t0 = firstPast(ts, after_t0, [t0](int64_t t) { return double(t) > t0; });
    const size_t first = after_t0 == 0 ? 0 : after_t0 - 1;  // the point in effect at t0 (pointAt)
    const size_t last = firstPast(ts, first, [t1](int64_t t) { return double(t) >= t1; });
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
