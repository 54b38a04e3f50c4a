// GPU side of a live capture: CUPTI Activity API records (kernels, memcpy,
// memset, synchronization) and the CUDA runtime/driver calls that launched
// them (through CUPTI callbacks by default, see CuptiApiSource) turned into
// Trace events on the same clock as the CPU side. See ../shared/DESIGN.md
// ("CuptiCollector").
//
// Builds without CUPTI get the same class: compiledIn() is false and start()
// explains that the capture is CPU-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#ifndef FUSELAB_HAVE_CUPTI
#include <ctime>
#endif

#include "profiling/capture_api/CaptureTypes.h"  // CuptiApiSource
#include "profiling/trace/Trace.h"

namespace fuselab {

struct CuptiOptions {
  // Record every CUDA driver call (minus noise). Off: only the driver launch
  // calls (cuLaunchKernel, cuLaunchKernelEx, cuGraphLaunch, ...) are kept,
  // because libraries such as cuBLAS launch their kernels through the driver.
  bool driver_api = false;
  size_t buffer_bytes = 8u << 20;  // one activity buffer handed to CUPTI
  size_t max_buffers = 64;         // pool bound; beyond it CUPTI drops records
  CuptiApiSource api_source = CuptiApiSource::Callbacks;
  size_t max_api_calls = size_t(1) << 18;  // Callbacks: calls kept; more are dropped and counted
};

// One per process may be active (CUPTI accepts a single subscriber). Use from
// one controlling thread; the CUDA work it records may come from any thread.
class CuptiCollector {
 public:
  CuptiCollector();
  ~CuptiCollector();  // stops if still active
  CuptiCollector(const CuptiCollector&) = delete;
  CuptiCollector& operator=(const CuptiCollector&) = delete;

  static bool compiledIn();

  // Subscribes to CUPTI and enables the activity kinds. false + a message when
  // there is no GPU, CUPTI is held by another profiler (or another collector),
  // or fuselab was built without CUPTI. Starting again discards earlier records.
  bool start(const CuptiOptions& options, std::string* error);

  // Disables every activity kind it enabled, flushes every buffer (call after
  // synchronizing the GPU: work still running comes back incomplete and is
  // skipped), restores the thread-id type and unsubscribes, so another CUPTI
  // client (LibTorch's Kineto profiler) can start afterwards. The per-call
  // switches it turned off are reset by the next client that enables a kind.
  // cuptiFinalize is not called: it is only safe from inside a CUPTI callback
  // and would detach CUPTI from every client in the process. Idempotent.
  void stop();

  // GPU work on (pid=device, tid=stream) tracks named "GPU N" / "stream N";
  // runtime/driver calls on (pid=getpid(), tid=gettid() of the calling thread).
  // Sets meta.dropped_records, device properties and capture warnings.
  // Call after stop(); may be called more than once (appends again). Records
  // that start before from_ns (a warm-up recorded to absorb CUPTI's one-time
  // setup) are left out.
  void appendTo(Trace& trace, int64_t from_ns = std::numeric_limits<int64_t>::min()) const;

  uint64_t droppedRecords() const;   // reported lost by CUPTI (pool exhausted)
  uint64_t incompleteRecords() const;  // GPU records without timestamps, skipped
  size_t eventCount() const;         // converted events held for appendTo
  // CUDA calls switched off at the source that CUPTI recorded anyway and the
  // conversion dropped: 0 while per-call filtering works (only costs overhead).
  uint64_t callsFilteredAfterRecording() const;

  // Timestamp on the clock of the CUPTI records (cuptiGetTimestamp, which
  // follows CLOCK_REALTIME); CLOCK_REALTIME in builds without CUPTI.
  static int64_t nowNs();

  // Optional: tag the CUDA calls made on this thread until the matching pop
  // with an id (the CPU op's external id); shows as "External id" and in the
  // external_id column of the runtime call and its GPU work.
  static void pushExternalId(uint64_t id);
  static void popExternalId();

  struct State;

 private:
  std::unique_ptr<State> state_;
};

#ifndef FUSELAB_HAVE_CUPTI
// CPU-only build: nothing to subscribe to.
struct CuptiCollector::State {};
inline CuptiCollector::CuptiCollector() = default;
inline CuptiCollector::~CuptiCollector() = default;
inline bool CuptiCollector::compiledIn() { return false; }
inline bool CuptiCollector::start(const CuptiOptions&, std::string* error) {
  if (error) *error = "fuselab was built without CUDA/CUPTI: CPU-only capture";
  return false;
}
inline void CuptiCollector::stop() {}
inline void CuptiCollector::appendTo(Trace&, int64_t) const {}
inline uint64_t CuptiCollector::droppedRecords() const { return 0; }
inline uint64_t CuptiCollector::incompleteRecords() const { return 0; }
inline size_t CuptiCollector::eventCount() const { return 0; }
inline uint64_t CuptiCollector::callsFilteredAfterRecording() const { return 0; }
inline int64_t CuptiCollector::nowNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
inline void CuptiCollector::pushExternalId(uint64_t) {}
inline void CuptiCollector::popExternalId() {}
#endif

}  // namespace fuselab
