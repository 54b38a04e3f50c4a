#include "profiling/capture/MemoryCollector.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <mutex>
#include <vector>

#include <torch/csrc/profiler/orchestration/observer.h>

#include "profiling/capture/DispatchCollector.h"
#include "profiling/trace/DecimalTime.h"
#include "profiling/trace/MemoryEvents.h"

namespace fuselab {

namespace {

namespace tp = torch::profiler::impl;

struct MemoryRecord {
  int64_t ts_ns = 0;
  int64_t tid = 0;
  uint64_t addr = 0;
  int64_t bytes = 0;
  int64_t total_allocated = 0;
  int64_t total_reserved = 0;
  int16_t device_type = 0;
  int16_t device_id = -1;
  bool out_of_memory = false;
};

int64_t threadId() { return static_cast<int64_t>(::syscall(SYS_gettid)); }

}  // namespace

class MemoryCollector::Reporter : public tp::ProfilerStateBase {
 public:
  Reporter()
      : tp::ProfilerStateBase(tp::ProfilerConfig(tp::ProfilerState::Disabled, /*report_input_shapes=*/false,
                                                 /*profile_memory=*/true)) {
    records_.reserve(1 << 14);
  }
  tp::ActiveProfilerType profilerType() override { return tp::ActiveProfilerType::NONE; }

  void reportMemoryUsage(void* ptr, int64_t bytes, size_t allocated, size_t reserved, c10::Device device) override {
    add({DispatchCollector::nowNs(), threadId(), reinterpret_cast<uintptr_t>(ptr), bytes, int64_t(allocated),
         int64_t(reserved), int16_t(device.type()), int16_t(device.index()), false});
  }
  void reportOutOfMemory(int64_t bytes, size_t allocated, size_t reserved, c10::Device device) override {
    add({DispatchCollector::nowNs(), threadId(), 0, bytes, int64_t(allocated), int64_t(reserved),
         int16_t(device.type()), int16_t(device.index()), true});
  }

  std::vector<MemoryRecord> records() const {
    std::lock_guard lock(mutex_);
    return records_;
  }

 private:
  void add(const MemoryRecord& r) {
    std::lock_guard lock(mutex_);
    records_.push_back(r);
  }
  mutable std::mutex mutex_;
  std::vector<MemoryRecord> records_;
};

MemoryCollector::MemoryCollector() = default;
MemoryCollector::~MemoryCollector() { stop(); }

bool MemoryCollector::start(std::string* error) {
  stop();
  if (tp::ProfilerStateBase::get(/*global=*/false)) {
    if (error) *error = "another profiler (torch.profiler, or a capture) already records on this thread";
    return false;
  }
  reporter_ = std::make_shared<Reporter>();
  std::shared_ptr<tp::ProfilerStateBase> state = reporter_;
  tp::ProfilerStateBase::push(std::move(state));
  pushed_ = true;
  return true;
}

void MemoryCollector::stop() {
  if (!pushed_) return;
  tp::ProfilerStateBase::pop(/*global=*/false);
  pushed_ = false;
}

bool MemoryCollector::recording() const { return pushed_; }

size_t MemoryCollector::eventCount() const { return reporter_ ? reporter_->records().size() : 0; }

std::optional<int64_t> MemoryCollector::earliestNs(int64_t from_ns) const {
  std::optional<int64_t> earliest;
  if (reporter_)
    for (const MemoryRecord& r : reporter_->records())
      if (r.ts_ns >= from_ns && (!earliest || r.ts_ns < *earliest)) earliest = r.ts_ns;
  return earliest;
}

void MemoryCollector::appendTo(Trace& trace, int64_t from_ns, int64_t base_ns) const {
  if (!reporter_) return;
  const std::string pid = std::to_string(::getpid());
  const uint32_t memory_name = trace.strings.intern(kMemoryEventName);
  const uint32_t oom_name = trace.strings.intern(kOutOfMemoryEventName);
  for (const MemoryRecord& r : reporter_->records()) {
    if (r.ts_ns < from_ns) continue;
    std::string json = "{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"";
    json += r.out_of_memory ? kOutOfMemoryEventName : kMemoryEventName;
    json += "\", \"pid\": " + pid + ", \"tid\": " + std::to_string(r.tid) + ", \"ts\": ";
    appendMicroseconds(json, r.ts_ns - base_ns);
    json += ", \"args\": {\"Total Reserved\": " + std::to_string(r.total_reserved) +
            ", \"Total Allocated\": " + std::to_string(r.total_allocated) + ", \"Bytes\": " + std::to_string(r.bytes) +
            ", \"Device Id\": " + std::to_string(r.device_id) + ", \"Device Type\": " + std::to_string(r.device_type);
    if (!r.out_of_memory) json += ", \"Addr\": " + std::to_string(r.addr);
    json += "}}";
    trace.raw_events.push_back(RawEvent{std::move(json), r.ts_ns, r.out_of_memory ? oom_name : memory_name, 'i'});
  }
}

}  // namespace fuselab
