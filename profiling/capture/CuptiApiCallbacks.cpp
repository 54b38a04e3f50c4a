#include "profiling/capture/CuptiApiCallbacks.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace fuselab::cupti {

namespace {

uint32_t threadId() {
  thread_local const uint32_t tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  return tid;
}

thread_local std::vector<uint64_t> t_external_ids;
// Runtime calls of this thread between their entry and exit callbacks: the
// driver calls the runtime makes for them (cudaGraphLaunch -> cuGraphLaunch)
// are part of that call, as the activity kinds report it, not calls of their own.
thread_local int t_runtime_depth = 0;

}  // namespace

uint64_t ApiCallbackRecorder::cuptiClock() {
  uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

void pushThreadExternalId(uint64_t id) { t_external_ids.push_back(id); }

void popThreadExternalId() {
  if (!t_external_ids.empty()) t_external_ids.pop_back();
}

void ApiCallbackRecorder::reset(size_t capacity, Clock clock) {
  std::lock_guard lock(mutex_);
  records_.clear();
  records_.shrink_to_fit();
  records_.reserve(capacity);
  external_ids_.clear();
  external_ids_.shrink_to_fit();
  capacity_ = capacity;
  dropped_ = 0;
  pid_ = static_cast<uint32_t>(::getpid());
  clock_ = clock;
}

void ApiCallbackRecorder::onCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                     const CUpti_CallbackData& data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  if (!runtime && t_runtime_depth > 0) return;
  if (runtime) {
    if (data.callbackSite == CUPTI_API_ENTER)
      ++t_runtime_depth;
    else if (t_runtime_depth > 0)  // an exit without its entry (switched on mid-call) leaves it at 0
      --t_runtime_depth;
  }
  if (data.callbackSite == CUPTI_API_ENTER) {
    if (data.correlationData) *data.correlationData = clock_();
    return;
  }
  CUpti_ActivityAPI r{};
  r.kind = runtime ? CUPTI_ACTIVITY_KIND_RUNTIME : CUPTI_ACTIVITY_KIND_DRIVER;
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
  // Rare (only while someone pushed an id): may allocate.
  if (!t_external_ids.empty()) {
    CUpti_ActivityExternalCorrelation x{};
    x.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    x.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
    x.externalId = t_external_ids.back();
    x.correlationId = r.correlationId;
    external_ids_.push_back(x);
  }
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
