// CUDA runtime and driver calls recorded through CUPTI's callback API instead
// of its activity API: callbacks are switched on call by call, so the calls
// left off (cudaGetDevice and the other queries ATen makes around almost
// every op) never enter fuselab, whereas the RUNTIME/DRIVER activity kinds
// see every call and filter afterwards. Each recorded call becomes the
// CUpti_ActivityAPI record the activity API would have written (same
// correlation id, so kernels still link to their launch), for RecordConverter.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace fuselab::cupti {

class ApiCallbackRecorder {
 public:
  using Clock = uint64_t (*)();
  // cuptiGetTimestamp, the clock of the activity records (0 if it fails).
  static uint64_t cuptiClock();

  // Forgets earlier calls and keeps room for `capacity` (allocated here, not
  // while recording); calls beyond it are counted as dropped. `clock` stamps
  // the calls (tests pass their own).
  void reset(size_t capacity, Clock clock = &cuptiClock);
  // One callback of the runtime or driver domain: the entry stamps the start
  // time into CUPTI's per-call slot, the exit stores the finished call.
  void onCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data);

  // Read after the callbacks are switched off.
  const std::vector<CUpti_ActivityAPI>& records() const { return records_; }
  // For the calls made while an external id was pushed on their thread (see
  // pushThreadExternalId): what CUPTI's EXTERNAL_CORRELATION records give with
  // the activity kinds, which may not come without them.
  const std::vector<CUpti_ActivityExternalCorrelation>& externalIds() const { return external_ids_; }
  uint64_t dropped() const { return dropped_; }

 private:
  std::mutex mutex_;  // calls may come from any thread
  std::vector<CUpti_ActivityAPI> records_;
  std::vector<CUpti_ActivityExternalCorrelation> external_ids_;
  size_t capacity_ = 0;
  uint64_t dropped_ = 0;
  uint32_t pid_ = 0;
  Clock clock_ = &cuptiClock;
};

// The external ids pushed on this thread, innermost last, kept beside CUPTI's
// own stack so the recorder can tag calls with the innermost one.
void pushThreadExternalId(uint64_t id);
void popThreadExternalId();

// Switches the callbacks of these calls on (or off); false + the first call
// CUPTI refused.
bool switchApiCallbacks(CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,
                        const std::vector<uint32_t>& ids, bool on, std::string* error);

}  // namespace fuselab::cupti
