// Correlation id -> launch link index. Ids are usually a dense counter, so a
// plain vector over [min, max] replaces the hash map: lookups in the analysis
// then cost one load instead of a hash-bucket walk (launchFor was ~6% of
// `fuselab analyze`). Sparse ids fall back to the hash map.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace fuselab {

class CorrelationIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // Sizes the index for ids in [lo, hi] with `count` of them (before adds).
  void reset(int64_t lo, int64_t hi, size_t count);
  // The value stored for `id`, or `value` stored now if there was none.
  uint32_t findOrAdd(int64_t id, uint32_t value);
  uint32_t find(int64_t id) const {
    if (dense_mode_) {
      uint64_t at = static_cast<uint64_t>(id) - static_cast<uint64_t>(lo_);
      return at < dense_.size() ? dense_[at] : kNone;
    }
    auto it = sparse_.find(id);
    return it == sparse_.end() ? kNone : it->second;
  }

 private:
  bool dense_mode_ = false;
  int64_t lo_ = 0;
  std::vector<uint32_t> dense_;
  std::unordered_map<int64_t, uint32_t> sparse_;
};

}  // namespace fuselab
