#include "profiling/trace/CorrelationIndex.h"

namespace fuselab {

void CorrelationIndex::reset(int64_t lo, int64_t hi, size_t count) {
  dense_.clear();
  slots_.clear();
  lo_ = lo;
  // Dense when the range costs at most a few slots per id (4 bytes each).
  const uint64_t range = hi >= lo ? static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1 : 0;
  dense_mode_ = range > 0 && range <= 4 * uint64_t(count) + 1024;
  if (dense_mode_) {
    dense_.assign(range, kNone);
    return;
  }
  if (count == 0) return;
  int bits = 4;  // at most half full
  while ((size_t(1) << bits) < 2 * count) ++bits;
  slots_.assign(size_t(1) << bits, Slot{});
  mask_ = (size_t(1) << bits) - 1;
  shift_ = 64 - bits;
}

uint32_t CorrelationIndex::findOrAdd(int64_t id, uint32_t value) {
  if (dense_mode_) {
    uint32_t& slot = dense_[static_cast<uint64_t>(id) - static_cast<uint64_t>(lo_)];
    if (slot == kNone) slot = value;
    return slot;
  }
  for (size_t at = home(id);; at = (at + 1) & mask_) {
    Slot& s = slots_[at];
    if (s.value == kNone) {
      s = Slot{id, value};
      return value;
    }
    if (s.id == id) return s.value;
  }
}

}  // namespace fuselab
