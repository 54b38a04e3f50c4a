#include "profiling/trace/CorrelationIndex.h"

#include <algorithm>
#include <numeric>

namespace fuselab {

namespace {

uint64_t rangeOf(int64_t lo, int64_t hi) {
  return hi >= lo ? static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1 : 0;
}

// Dense when the range costs at most a few slots per id (4 bytes each).
bool isDense(uint64_t range, size_t count) { return range <= 4 * uint64_t(count) + 1024; }

}  // namespace

void CorrelationIndex::reset(const std::vector<IdSpan>& parts) {
  IdSpan all;
  bool each_dense = true;
  for (const IdSpan& p : parts) {
    if (p.count == 0) continue;
    all.lo = std::min(all.lo, p.lo), all.hi = std::max(all.hi, p.hi), all.count += p.count;
    each_dense = each_dense && isDense(rangeOf(p.lo, p.hi), p.count);
  }
  if (parts.size() < 2 || isDense(rangeOf(all.lo, all.hi), all.count)) return reset(all.lo, all.hi, all.count);
  *this = CorrelationIndex{};
  if (!each_dense) {
    parts_.resize(parts.size());
    for (size_t k = 0; k < parts.size(); ++k)
      if (parts[k].count) parts_[k].reset(parts[k].lo, parts[k].hi, parts[k].count);
    return;
  }
  dense_mode_ = true;
  dense_.resize(parts.size());
  for (size_t k = 0; k < parts.size(); ++k)
    if (parts[k].count) dense_[k] = {parts[k].lo, std::vector<uint32_t>(rangeOf(parts[k].lo, parts[k].hi), kNone)};
}

void CorrelationIndex::reset(int64_t lo, int64_t hi, size_t count) {
  *this = CorrelationIndex{};
  lo_ = lo;
  const uint64_t range = rangeOf(lo, hi);
  dense_mode_ = range > 0 && isDense(range, count);
  if (dense_mode_) {
    dense_base_ = lo;
    dense_.push_back({lo, std::vector<uint32_t>(range, kNone)});
    return;
  }
  if (count == 0) return;
  // Most ids come twice (a launch call and its GPU op): sized for half the
  // count, the table is half the memory to clear and to miss the cache in.
  sizeTable(count / 2 + 1);
  added_.reserve(count / 2 + 1);
  // About one id per block of the directory.
  block_bits_ = 0;
  while (block_bits_ < 63 && (range >> block_bits_) > count) ++block_bits_;
}

void CorrelationIndex::sizeTable(size_t count) {
  int bits = 4;
  while ((size_t(1) << bits) < 2 * count) ++bits;
  slots_.assign(size_t(1) << bits, Slot{});
  mask_ = (size_t(1) << bits) - 1;
  shift_ = 64 - bits;
}

void CorrelationIndex::grow() {
  sizeTable(slots_.size());
  for (const Slot& added : added_) {
    size_t at = home(added.id);
    while (slots_[at].value != kNone) at = (at + 1) & mask_;
    slots_[at] = added;
  }
}

uint32_t CorrelationIndex::findOrAdd(int64_t id, uint32_t value) {
  if (!parts_.empty()) return parts_[static_cast<uint64_t>(id) >> kPartBits].findOrAdd(id, value);  // in the spans given
  if (dense_mode_) {
    uint32_t& slot = *denseSlot(id);  // the id lies in the spans given to reset
    if (slot == kNone) slot = value;
    return slot;
  }
  if (2 * (added_.size() + 1) > slots_.size()) grow();
  for (size_t at = home(id);; at = (at + 1) & mask_) {
    Slot& s = slots_[at];
    if (s.value == kNone) {
      s = Slot{id, value};
      added_.push_back(s);
      return value;
    }
    if (s.id == id) return s.value;
  }
}

void CorrelationIndex::freezePart(size_t part) {
  if (part < parts_.size()) parts_[part].freeze();
}

void CorrelationIndex::offsetPart(size_t part, uint32_t base) {
  if (base == 0) return;
  auto offset = [&](std::vector<uint32_t>& values) {
    for (uint32_t& v : values)
      if (v != kNone) v += base;
  };
  if (dense_mode_ && part < dense_.size()) offset(dense_[part].slots);
  if (part >= parts_.size()) return;
  CorrelationIndex& p = parts_[part];
  for (DensePart& d : p.dense_) offset(d.slots);
  offset(p.values_);  // frozen
}

uint32_t CorrelationIndex::findHashed(int64_t id) const {
  if (slots_.empty()) return kNone;
  for (size_t at = home(id);; at = (at + 1) & mask_) {
    const Slot& s = slots_[at];
    if (s.value == kNone || s.id == id) return s.value;
  }
}

void CorrelationIndex::freeze() {
  for (CorrelationIndex& p : parts_) p.freeze();
  if (dense_mode_ || frozen_ || !parts_.empty()) return;
  // In the order added, ids are mostly increasing already (they follow
  // time): sorted faster than the table's hashed order, and without a scan
  // of the table.
  std::vector<Slot> used = std::move(added_);
  added_ = {};
  slots_ = std::vector<Slot>();
  std::sort(used.begin(), used.end(), [](const Slot& a, const Slot& b) { return a.id < b.id; });
  ids_.reserve(used.size());
  values_.reserve(used.size());
  for (const Slot& s : used) ids_.push_back(s.id), values_.push_back(s.value);
  const size_t blocks = used.empty() ? 0 : ((static_cast<uint64_t>(ids_.back()) - static_cast<uint64_t>(lo_)) >> block_bits_) + 1;
  block_start_.assign(blocks + 1, 0);
  for (int64_t id : ids_) ++block_start_[((static_cast<uint64_t>(id) - static_cast<uint64_t>(lo_)) >> block_bits_) + 1];
  std::partial_sum(block_start_.begin(), block_start_.end(), block_start_.begin());
  frozen_ = true;
}

uint32_t CorrelationIndex::findSorted(int64_t id) const {
  const uint64_t block = (static_cast<uint64_t>(id) - static_cast<uint64_t>(lo_)) >> block_bits_;
  if (block + 1 >= block_start_.size()) return kNone;
  const auto first = ids_.begin() + block_start_[block], last = ids_.begin() + block_start_[block + 1];
  const auto it = std::lower_bound(first, last, id);
  return it != last && *it == id ? values_[size_t(it - ids_.begin())] : kNone;
}

}  // namespace fuselab
