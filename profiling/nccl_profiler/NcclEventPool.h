// A bounded pool of event records whose addresses never move (NCCL keeps
// the handles we return): records are handed out in order from chunks made
// on first use, up to a fixed capacity; past it, acquire() returns nullptr
// and the caller counts the event as dropped. Records are never reused, so
// a handle stays valid until the pool is destroyed (at finalize). Safe to
// acquire from several threads (NCCL's user and proxy threads).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

namespace fuselab::nccl_profiler {

template <class Record>
class EventPool {
 public:
  static constexpr uint32_t kChunk = 4096;

  explicit EventPool(uint32_t capacity)
      : capacity_(capacity), chunks_(new std::atomic<Record*>[(uint64_t(capacity) + kChunk - 1) / kChunk]()) {}
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;
  ~EventPool() {
    for (uint64_t c = 0; c < (uint64_t(capacity_) + kChunk - 1) / kChunk; ++c)
      delete[] chunks_[c].load(std::memory_order_relaxed);
  }

  // A fresh record, or nullptr when the pool is full.
  Record* acquire() {
    const uint32_t i = next_.fetch_add(1, std::memory_order_relaxed);
    if (i >= capacity_) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
    Record* chunk = chunks_[i / kChunk].load(std::memory_order_acquire);
    if (!chunk) chunk = makeChunk(i / kChunk);
    return &chunk[i % kChunk];
  }

  // Records handed out so far (in order of acquisition); `at` only below it.
  uint32_t size() const {
    const uint32_t n = next_.load(std::memory_order_acquire);
    return n < capacity_ ? n : capacity_;
  }
  Record& at(uint32_t i) const { return chunks_[i / kChunk].load(std::memory_order_acquire)[i % kChunk]; }
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  uint32_t capacity() const { return capacity_; }

 private:
  Record* makeChunk(uint32_t c) {
    std::lock_guard<std::mutex> lock(grow_);
    Record* chunk = chunks_[c].load(std::memory_order_acquire);
    if (!chunk) {
      chunk = new Record[kChunk]();
      chunks_[c].store(chunk, std::memory_order_release);
    }
    return chunk;
  }

  const uint32_t capacity_;
  std::atomic<uint32_t> next_{0};
  std::atomic<uint64_t> dropped_{0};
  std::mutex grow_;
  std::unique_ptr<std::atomic<Record*>[]> chunks_;
};

}  // namespace fuselab::nccl_profiler
