// Correlation id -> launch link index, looked up for every GPU op by several
// analyses (launchFor was 7-13% of `fuselab analyze` with a hash map: at 10M
// events each lookup was a cache miss). Dense ids index a plain vector over
// [min, max], or one per part of the ids (id >> kPartBits: a merged run's
// ranks, RunMerge.h) when each part is dense on its own. Other ids are added
// to an open-addressing table, then frozen into a sorted array with a block
// directory: the analyses look ids up roughly in time order, so neighbouring
// lookups share cache lines. Parts of which some are not dense get an index
// each (dense or not on its own).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace fuselab {

class CorrelationIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr int kPartBits = 40;

  // The ids of one part, seen before the adds.
  struct IdSpan {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t count = 0;
    void add(int64_t id) { lo = std::min(lo, id), hi = std::max(hi, id), ++count; }
  };

  // Sizes the index for about `count` ids, all in [lo, hi] (before adds);
  // the table grows if more are added.
  void reset(int64_t lo, int64_t hi, size_t count);
  // The same for ids >= 0 seen part by part: parts[k] spans those with
  // id >> kPartBits == k.
  void reset(const std::vector<IdSpan>& parts);
  // The value stored for `id`, or `value` stored now if there was none.
  uint32_t findOrAdd(int64_t id, uint32_t value);
  // Part by part (reset(parts), ids of several parts): the adds and the
  // freeze of different parts touch different memory and may run side by side.
  bool byPart() const { return (dense_mode_ && dense_.size() > 1) || !parts_.empty(); }
  // After the last add of part `part` (byPart()): switches its lookups to the sorted form.
  void freezePart(size_t part);
  // Part `part`'s stored values moved up by `base` (values added part by
  // part, each counted from 0), once it is frozen.
  void offsetPart(size_t part, uint32_t base);
  // After the last add: switches lookups to the sorted form.
  void freeze();
  uint32_t find(int64_t id) const {
    if (dense_mode_) {
      const uint32_t* slot = denseSlot(id);
      return slot ? *slot : kNone;
    }
    if (!parts_.empty()) {
      const uint64_t part = static_cast<uint64_t>(id) >> kPartBits;
      return part < parts_.size() ? parts_[part].find(id) : kNone;
    }
    return frozen_ ? findSorted(id) : findHashed(id);
  }

 private:
  // A dense part: ids from lo, one slot each.
  struct DensePart {
    int64_t lo = 0;
    std::vector<uint32_t> slots;
  };
  const uint32_t* denseSlot(int64_t id) const {
    const uint64_t part = (static_cast<uint64_t>(id) - static_cast<uint64_t>(dense_base_)) >> kPartBits;
    if (part >= dense_.size()) return nullptr;
    const DensePart& p = dense_[part];
    const uint64_t at = static_cast<uint64_t>(id) - static_cast<uint64_t>(p.lo);
    return at < p.slots.size() ? &p.slots[at] : nullptr;
  }
  uint32_t* denseSlot(int64_t id) { return const_cast<uint32_t*>(std::as_const(*this).denseSlot(id)); }
  struct Slot {
    int64_t id = 0;
    uint32_t value = kNone;  // kNone: empty
  };
  size_t home(int64_t id) const { return (static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ull) >> shift_; }
  uint32_t findHashed(int64_t id) const;
  uint32_t findSorted(int64_t id) const;
  void sizeTable(size_t count);  // empty, at most half full with `count` ids
  void grow();                   // twice the slots, the ids (added_) put back

  bool dense_mode_ = false;
  bool frozen_ = false;
  int64_t lo_ = 0;
  // Dense: the part of an id is (id - dense_base_) >> kPartBits.
  int64_t dense_base_ = 0;
  std::vector<DensePart> dense_;
  // Parts not all dense: an index per part (id >> kPartBits).
  std::vector<CorrelationIndex> parts_;
  // While adding: linear probing, power-of-two size, at most half full.
  std::vector<Slot> slots_;
  std::vector<Slot> added_;  // the same ids, in the order added (to grow, to freeze)
  size_t mask_ = 0;
  int shift_ = 64;
  // Frozen: ids sorted, their values, and where each block of ids begins.
  std::vector<int64_t> ids_;
  std::vector<uint32_t> values_;
  std::vector<uint32_t> block_start_;  // block b: ids in [lo + b << block_bits_, ...)
  int block_bits_ = 0;
};

}  // namespace fuselab
