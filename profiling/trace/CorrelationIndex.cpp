#include "profiling/trace/CorrelationIndex.h"

namespace fuselab {

void CorrelationIndex::reset(int64_t lo, int64_t hi, size_t count) {
  dense_.clear();
  sparse_.clear();
  lo_ = lo;
  // Dense when the range costs at most a few slots per id (4 bytes each).
  const uint64_t range = hi >= lo ? static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1 : 0;
  dense_mode_ = range > 0 && range <= 4 * uint64_t(count) + 1024;
  if (dense_mode_) dense_.assign(range, kNone);
}

uint32_t CorrelationIndex::findOrAdd(int64_t id, uint32_t value) {
  if (dense_mode_) {
    uint32_t& slot = dense_[static_cast<uint64_t>(id) - static_cast<uint64_t>(lo_)];
    if (slot == kNone) slot = value;
    return slot;
  }
  return sparse_.emplace(id, value).first->second;
}

}  // namespace fuselab
