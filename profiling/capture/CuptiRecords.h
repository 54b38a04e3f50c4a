// Converts CUPTI activity records into compact events that the collector
// appends to a Trace, and writes their Kineto-style "args" objects.
#pragma once

#include <cupti_activity.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profiling/trace/Trace.h"

namespace fuselab::cupti {

// One record, converted. GPU work and sync events go to the (device, stream)
// track, runtime/driver calls to the CPU thread track.
struct CuptiEvent {
  Category category = Category::Other;
  bool on_gpu = false;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t name = 0;  // index into RecordConverter::names()
  int32_t device = -1;
  uint32_t context = 0;
  int64_t stream = -1;  // -1: not tied to a stream (context sync)
  uint32_t thread_id = 0;  // runtime/driver: system thread id
  int64_t correlation = -1;
  int64_t external_id = -1;
  // Kind-specific detail for the args object.
  uint32_t cbid = 0;
  uint64_t bytes = 0;
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  uint32_t registers_per_thread = 0;
  int64_t shared_memory = 0;  // static + dynamic, bytes
  uint32_t sync_type = 0;     // CUpti_ActivitySynchronizationType
  int64_t cuda_event_id = -1;
};

// What the args of a kernel need to know about its device.
struct SmFacts {
  int num_sms = 0;
  int warp_size = 32;
};

class RecordConverter {
 public:
  // false (default): of the driver calls only launches are kept.
  void keepAllDriverCalls(bool keep) { keep_all_driver_calls_ = keep; }
  // Converts one record (dispatching on record->kind). Unknown kinds are
  // counted and ignored; API calls that slip past the source filter (noise,
  // non-launch driver calls when those are off) are dropped here too.
  void add(const CUpti_Activity* record);
  // Every CUPTI-owned buffer of a capture, in delivery order.
  void addBuffer(const uint8_t* buffer, size_t valid_bytes);
  // After the last record: attach external ids, place sync events on a device.
  void finish(int fallback_device);

  const std::vector<CuptiEvent>& events() const { return events_; }
  const std::vector<std::string>& names() const { return names_; }
  uint64_t incomplete() const { return incomplete_; }   // GPU records without timestamps
  uint64_t filteredNoise() const { return filtered_; }  // calls switched off but recorded, dropped here
  uint64_t otherKinds() const { return other_kinds_; }
  void clear();

 private:
  uint32_t intern(std::string_view s);
  uint32_t kernelName(const char* mangled);
  void addApi(const CUpti_ActivityAPI& r, bool driver);
  void addKernel(const CUpti_ActivityKernel10& r);
  void addMemcpy(const CUpti_ActivityMemcpy6& r);
  void addMemset(const CUpti_ActivityMemset4& r);
  void addSync(const CUpti_ActivitySynchronization2& r);
  bool gpuTimes(uint64_t start, uint64_t end, CuptiEvent& e);

  std::vector<CuptiEvent> events_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> name_index_;
  std::unordered_map<const char*, uint32_t> kernel_names_;  // CUPTI shares one pointer per kernel
  std::unordered_map<uint32_t, uint64_t> external_ids_;     // correlation -> external id
  std::unordered_map<uint32_t, int32_t> context_devices_;   // context id -> device
  uint64_t incomplete_ = 0;
  uint64_t filtered_ = 0;
  uint64_t other_kinds_ = 0;
  bool keep_all_driver_calls_ = false;
};

// "void foo<int>(float*)" from "_Z3fooIiEvPf"; the input when it is not a
// mangled name.
std::string demangle(const char* name);
// Kineto's spellings: "Memcpy HtoD (Pinned -> Device)", "Memset (Device)", "Context Sync".
std::string memcpyName(uint32_t copy_kind, uint32_t src_kind, uint32_t dst_kind);
std::string memsetName(uint32_t memory_kind);
std::string_view syncName(uint32_t sync_type);

// Appends the converted events: GPU work and sync on (pid=device, tid=stream)
// tracks named "GPU N" / "stream N", runtime/driver calls on (pid, tid=thread
// id) tracks. sm_facts (by device) feed the kernels' per-SM figures.
// Records of the warm-up are left out: calls that start before from_ns, and
// GPU work launched by such a call even where it runs after from_ns (the
// last warm-up forward still runs on the GPU while the first recorded step
// is dispatched). GPU work without a launch record goes by its own start.
void appendEvents(const RecordConverter& converter, const std::unordered_map<int, SmFacts>& sm_facts, int64_t pid,
                  Trace& trace, int64_t from_ns = std::numeric_limits<int64_t>::min());

// The event's args object as JSON text (Kineto's keys: "device", "stream",
// "correlation", "grid", "bytes", "cbid", ...). sm may be null.
std::string argsJson(const CuptiEvent& e, const SmFacts* sm);

}  // namespace fuselab::cupti
