// Correlation id -> launch link index, looked up for every GPU op by the
// analysis (launchFor was ~7% of `fuselab analyze` with std::unordered_map).
// Dense ids index a plain vector over [min, max]; others an open-addressing
// table (linear probing, power-of-two size), one cache line per lookup.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fuselab {

class CorrelationIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // Sizes the index for at most `count` ids, all in [lo, hi] (before adds).
  void reset(int64_t lo, int64_t hi, size_t count);
  // The value stored for `id`, or `value` stored now if there was none.
  uint32_t findOrAdd(int64_t id, uint32_t value);
  uint32_t find(int64_t id) const {
    if (dense_mode_) {
      uint64_t at = static_cast<uint64_t>(id) - static_cast<uint64_t>(lo_);
      return at < dense_.size() ? dense_[at] : kNone;
    }
    if (slots_.empty()) return kNone;
    for (size_t at = home(id);; at = (at + 1) & mask_) {
      const Slot& s = slots_[at];
      if (s.value == kNone || s.id == id) return s.value;
    }
  }

 private:
  struct Slot {
    int64_t id = 0;
    uint32_t value = kNone;  // kNone: empty
  };
  size_t home(int64_t id) const { return (static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ull) >> shift_; }

  bool dense_mode_ = false;
  int64_t lo_ = 0;
  std::vector<uint32_t> dense_;
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  int shift_ = 64;
};

}  // namespace fuselab
