#include "profiling/CuptiApiCallbacks.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace fuselab::cupti {

namespace {

uint32_t threadId() {
  thread_local const uint32_t tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  return tid;
}

}  // namespace

uint64_t ApiCallbackRecorder::cuptiClock() {
  uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

void ApiCallbackRecorder::reset(size_t capacity, Clock clock) {
  std::lock_guard lock(mutex_);
  records_.clear();
  records_.shrink_to_fit();
  records_.reserve(capacity);
  capacity_ = capacity;
  dropped_ = 0;
  pid_ = static_cast<uint32_t>(::getpid());
  clock_ = clock;
}

void ApiCallbackRecorder::onCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                     const CUpti_CallbackData& data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  if (data.callbackSite == CUPTI_API_ENTER) {
    if (data.correlationData) *data.correlationData = clock_();
    return;
  }
  CUpti_ActivityAPI r{};
  r.kind = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? CUPTI_ACTIVITY_KIND_RUNTIME : CUPTI_ACTIVITY_KIND_DRIVER;
  r.cbid = cbid;
  r.end = clock_();
  // A call entered before its callback was switched on has no start stamp.
  const uint64_t start = data.correlationData ? *data.correlationData : 0;
  r.start = start != 0 && start <= r.end ? start : r.end;
  r.threadId = threadId();
  r.correlationId = data.correlationId;
  std::lock_guard lock(mutex_);
  r.processId = pid_;
  if (records_.size() == capacity_) {
    ++dropped_;
    return;
  }
  records_.push_back(r);
}

bool switchApiCallbacks(CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,
                        const std::vector<uint32_t>& ids, bool on, std::string* error) {
  for (uint32_t cbid : ids) {
    CUptiResult r = cuptiEnableCallback(on ? 1 : 0, subscriber, domain, cbid);
    if (r != CUPTI_SUCCESS) {
      const char* text = nullptr;
      if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || !text) text = "unknown CUPTI error";
      if (error)
        *error = "cuptiEnableCallback for " + std::string(domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "runtime" : "driver") +
                 " call " + std::to_string(cbid) + ": " + text;
      return false;
    }
  }
  return true;
}

}  // namespace fuselab::cupti
