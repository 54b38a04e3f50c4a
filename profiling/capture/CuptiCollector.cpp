// CUPTI subscription, activity switches and the bounded buffer pool. Record
// conversion lives in CuptiRecords.cpp, call names in CuptiApiNames.cpp.
#include "profiling/capture/CuptiCollector.h"

#include <cuda_runtime_api.h>
#include <cupti.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <mutex>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <utility>

#include "profiling/capture/CuptiApiCallbacks.h"
#include "profiling/capture/CuptiApiNames.h"
#include "profiling/capture/CuptiRecords.h"

namespace fuselab {

namespace {

constexpr size_t kMinBufferBytes = 4096;
constexpr CUpti_ExternalCorrelationKind kExternalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;

std::string cuptiError(const char* call, CUptiResult r) {
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || !text) text = "unknown CUPTI error";
  return std::string(call) + ": " + text;
}

bool isBusy(CUptiResult r) {
  return r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED || r == CUPTI_ERROR_MAX_LIMIT_REACHED;
}

std::string busyMessage(const std::string& detail) {
  return "CUPTI is in use by another profiler in this process (" + detail + "): capturing CPU only";
}

}  // namespace

struct CuptiCollector::State {
  CuptiOptions options;
  bool active = false;
  CUpti_SubscriberHandle subscriber = nullptr;
  CUpti_ActivityThreadIdType previous_thread_id_type = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
  bool thread_id_type_changed = false;
  std::vector<CUpti_ActivityKind> enabled_kinds;
  bool api_callbacks_on = false;
  cupti::ApiCallbackRecorder api_calls;  // CuptiApiSource::Callbacks
  int start_device = 0;

  // Buffer pool; guarded by g_pool_mutex (CUPTI calls back from its own thread).
  size_t buffers_allocated = 0;
  std::vector<uint8_t*> free_buffers;
  std::vector<std::pair<uint8_t*, size_t>> completed;  // buffer, valid bytes
  uint64_t refused_requests = 0;
  uint64_t dropped = 0;

  // Results of the last capture.
  cupti::RecordConverter converter;
  std::vector<DeviceProperties> devices;
  std::unordered_map<int, cupti::SmFacts> sm_facts;
  std::vector<std::string> warnings;
};

namespace {

std::mutex g_pool_mutex;
CuptiCollector::State* g_active = nullptr;  // the one collector CUPTI delivers to

void CUPTIAPI onBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = nullptr;
  *size = 0;
  *max_records = 0;
  std::lock_guard lock(g_pool_mutex);
  CuptiCollector::State* s = g_active;
  if (!s) return;
  if (!s->free_buffers.empty()) {
    *buffer = s->free_buffers.back();
    s->free_buffers.pop_back();
  } else if (s->buffers_allocated < s->options.max_buffers) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, s->options.buffer_bytes));
    if (*buffer) ++s->buffers_allocated;
  }
  if (*buffer) {
    *size = s->options.buffer_bytes;
  } else {
    // Pool exhausted: CUPTI drops the records it cannot store and counts them.
    ++s->refused_requests;
  }
}

void CUPTIAPI onBufferCompleted(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
  size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(context, stream, &dropped);
  std::lock_guard lock(g_pool_mutex);
  CuptiCollector::State* s = g_active;
  if (!s) {
    std::free(buffer);  // arrived after stop(): nobody to give it to
    return;
  }
  s->dropped += dropped;
  if (buffer) s->completed.emplace_back(buffer, valid);
}

// Only the calls switched on with CuptiApiSource::Callbacks arrive here; with
// the activity kinds the subscription just claims CUPTI for this process.
void CUPTIAPI onCallback(void* state, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  auto* s = static_cast<CuptiCollector::State*>(state);
  if (s && data) s->api_calls.onCallback(domain, cbid, *static_cast<const CUpti_CallbackData*>(data));
}

nlohmann::ordered_json devicePropertiesJson(int id, const cudaDeviceProp& p) {
  nlohmann::ordered_json j;
  j["id"] = id;
  j["name"] = p.name;
  j["totalGlobalMem"] = p.totalGlobalMem;
  j["computeMajor"] = p.major;
  j["computeMinor"] = p.minor;
  j["maxThreadsPerBlock"] = p.maxThreadsPerBlock;
  j["maxThreadsPerMultiprocessor"] = p.maxThreadsPerMultiProcessor;
  j["regsPerBlock"] = p.regsPerBlock;
  j["warpSize"] = p.warpSize;
  j["sharedMemPerBlock"] = p.sharedMemPerBlock;
  j["numSms"] = p.multiProcessorCount;
  j["regsPerMultiprocessor"] = p.regsPerMultiprocessor;
  j["sharedMemPerBlockOptin"] = p.sharedMemPerBlockOptin;
  j["sharedMemPerMultiprocessor"] = p.sharedMemPerMultiprocessor;
  return j;
}

// Undoes whatever start() managed to switch on; safe on a partial start. The
// per-call switches need no undoing: enabling a kind resets them.
void switchOff(CuptiCollector::State& s) {
  for (CUpti_ActivityKind kind : s.enabled_kinds) cuptiActivityDisable(kind);
  s.enabled_kinds.clear();
  if (s.api_callbacks_on) {
    cuptiEnableDomain(0, s.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
    cuptiEnableDomain(0, s.subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
    s.api_callbacks_on = false;
  }
}

void releaseCupti(CuptiCollector::State& s) {
  if (s.thread_id_type_changed) cuptiSetThreadIdType(s.previous_thread_id_type);
  s.thread_id_type_changed = false;
  if (s.subscriber) cuptiUnsubscribe(s.subscriber);
  s.subscriber = nullptr;
}

// Takes the pool's buffers out of the shared state; returns those with records.
std::vector<std::pair<uint8_t*, size_t>> detachPool(CuptiCollector::State& s) {
  std::lock_guard lock(g_pool_mutex);
  if (g_active == &s) g_active = nullptr;
  for (uint8_t* b : s.free_buffers) std::free(b);
  s.free_buffers.clear();
  s.buffers_allocated = 0;
  return std::exchange(s.completed, {});
}

// A fresh capture forgets the last one and takes the options (the buffer
// size rounded up to a multiple of 8, the buffers' alignment).
void forgetLastCapture(CuptiCollector::State& s, const CuptiOptions& options) {
  s.converter.clear();
  s.converter.keepAllDriverCalls(options.driver_api);
  s.devices.clear();
  s.sm_facts.clear();
  s.warnings.clear();
  s.completed.clear();
  s.dropped = 0;
  s.refused_requests = 0;
  s.options = options;
  s.options.buffer_bytes = (options.buffer_bytes + 7) / 8 * 8;
}

// The properties of each of the `count` devices (those that can be read),
// and the device current at the start (where sync events without one go).
void readDevices(CuptiCollector::State& s, int count) {
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    s.devices.push_back(DeviceProperties{d, prop.name, devicePropertiesJson(d, prop).dump()});
    s.sm_facts[d] = cupti::SmFacts{prop.multiProcessorCount, prop.warpSize};
  }
  if (cudaGetDevice(&s.start_device) != cudaSuccess) {
    cudaGetLastError();
    s.start_device = 0;
  }
}

// Subscribes to CUPTI, with runtime calls reported on the CPU ops' threads,
// and registers the buffer callbacks. Returns why not; empty when done.
std::string subscribe(CuptiCollector::State& s) {
  CUptiResult r = cuptiSubscribe(&s.subscriber, onCallback, &s);
  if (r != CUPTI_SUCCESS) {
    s.subscriber = nullptr;
    if (isBusy(r)) return busyMessage(cuptiError("cuptiSubscribe", r));
    return "CUPTI could not start (" + cuptiError("cuptiSubscribe", r) + "): capturing CPU only";
  }
  // Thread ids as gettid() so runtime calls land on the same track as the CPU ops.
  if (cuptiGetThreadIdType(&s.previous_thread_id_type) == CUPTI_SUCCESS &&
      cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) == CUPTI_SUCCESS)
    s.thread_id_type_changed = true;
  else
    return "CUPTI could not report system thread ids (cuptiSetThreadIdType): capturing CPU only";

  r = cuptiActivityRegisterCallbacks(onBufferRequested, onBufferCompleted);
  if (r != CUPTI_SUCCESS)
    return "CUPTI could not start (" + cuptiError("cuptiActivityRegisterCallbacks", r) + "): capturing CPU only";
  return {};
}

// Enables the activity kinds recorded. Returns why not; empty when done.
std::string enableKinds(CuptiCollector::State& s, bool api_callbacks) {
  // DRIVER is on even without driver_api: the launches among the driver calls
  // are needed (enabling single driver calls without the kind recorded nothing
  // on the H100 with CUDA 13.0), the rest is switched off call by call
  // (filterApiActivity).
  // With CuptiApiSource::Callbacks the calls come from callbacks instead.
  std::vector<CUpti_ActivityKind> kinds = {
      CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,  CUPTI_ACTIVITY_KIND_MEMSET,
      CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,   CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
  };
  if (!api_callbacks) kinds.insert(kinds.end(), {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER});
  for (CUpti_ActivityKind kind : kinds) {
    CUptiResult r = cuptiActivityEnable(kind);
    if (r != CUPTI_SUCCESS) {
      std::string detail = cuptiError("cuptiActivityEnable", r) + " for activity kind " + std::to_string(int(kind));
      if (isBusy(r)) return busyMessage(detail);
      return "CUPTI could not start (" + detail + "): capturing CPU only";
    }
    s.enabled_kinds.push_back(kind);
  }
  return {};
}

// CuptiApiSource::Callbacks: only the calls kept get a callback, so there is
// no noise to filter. Returns why not; empty when done.
std::string switchOnApiCallbacks(CuptiCollector::State& s, const CuptiOptions& options) {
  const cupti::ApiTable& table = cupti::ApiTable::instance();
  using cupti::ApiDomain;
  const std::vector<uint32_t> driver_on =
      options.driver_api ? table.quietIds(ApiDomain::Driver) : table.driverLaunchIds();
  std::string why;
  s.api_callbacks_on = true;
  if (!cupti::switchApiCallbacks(s.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, table.quietIds(ApiDomain::Runtime), true,
                                 &why) ||
      !cupti::switchApiCallbacks(s.subscriber, CUPTI_CB_DOMAIN_DRIVER_API, driver_on, true, &why))
    return "CUPTI could not start (" + why + "): capturing CPU only";
  return {};
}

// The calls as activity records: noise off at the source, call by call (after
// the kinds: enabling a kind resets these switches). Whatever still arrives
// is dropped in conversion, with a warning that it cost overhead.
void filterApiActivity(CuptiCollector::State& s, const CuptiOptions& options) {
  const cupti::ApiTable& table = cupti::ApiTable::instance();
  bool source_filter = true;
  for (uint32_t cbid : table.noisyIds(cupti::ApiDomain::Runtime))
    source_filter &= cuptiActivityEnableRuntimeApi(cbid, 0) == CUPTI_SUCCESS;
  const std::vector<uint32_t> driver_off =
      options.driver_api ? table.noisyIds(cupti::ApiDomain::Driver) : table.driverIdsExceptLaunches();
  for (uint32_t cbid : driver_off) source_filter &= cuptiActivityEnableDriverApi(cbid, 0) == CUPTI_SUCCESS;
  if (!source_filter)
    s.warnings.push_back("CUPTI could not switch off single CUDA calls (such as cudaGetDevice); they were "
                         "recorded, adding overhead, and dropped afterwards");
}

// Undoes a start that failed part way: whatever was switched on, the
// subscription, the slot and the pool.
void abandonStart(CuptiCollector::State& s) {
  switchOff(s);
  releaseCupti(s);
  for (auto& [buffer, valid] : detachPool(s)) std::free(buffer);
}

}  // namespace

CuptiCollector::CuptiCollector() : state_(std::make_unique<State>()) {}

CuptiCollector::~CuptiCollector() { stop(); }

bool CuptiCollector::compiledIn() { return true; }

int64_t CuptiCollector::nowNs() {
  uint64_t t = 0;
  if (cuptiGetTimestamp(&t) == CUPTI_SUCCESS && t != 0) return int64_t(t);
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void CuptiCollector::pushExternalId(uint64_t id) {
  cuptiActivityPushExternalCorrelationId(kExternalKind, id);
  cupti::pushThreadExternalId(id);
}

void CuptiCollector::popExternalId() {
  uint64_t last = 0;
  cuptiActivityPopExternalCorrelationId(kExternalKind, &last);
  cupti::popThreadExternalId();
}

bool CuptiCollector::start(const CuptiOptions& options, std::string* error) {
  auto fail = [&](std::string msg) {
    if (error) *error = std::move(msg);
    return false;
  };
  State& s = *state_;
  if (s.active) return fail("this CUPTI collector is already capturing");
  if (options.max_buffers == 0) return fail("CUPTI buffer pool: max_buffers must be at least 1");
  if (options.buffer_bytes < kMinBufferBytes)
    return fail("CUPTI buffer pool: buffer_bytes must be at least " + std::to_string(kMinBufferBytes) + ", got " +
                std::to_string(options.buffer_bytes));

  int count = 0;
  cudaError_t cerr = cudaGetDeviceCount(&count);
  if (cerr != cudaSuccess) {
    cudaGetLastError();  // do not leave the error for the next CUDA user to find
    return fail(std::string("no CUDA GPU: cudaGetDeviceCount failed (") + cudaGetErrorName(cerr) + ": " +
                cudaGetErrorString(cerr) + ")");
  }
  if (count == 0) return fail("no CUDA GPU: the CUDA runtime sees no device");

  {
    std::lock_guard lock(g_pool_mutex);
    if (g_active) return fail(busyMessage("another fuselab GPU capture is active"));
    // Claim the slot now so a concurrent start() is refused; released on failure.
    g_active = &s;
  }
  forgetLastCapture(s, options);
  readDevices(s, count);

  const bool api_callbacks = options.api_source == CuptiApiSource::Callbacks;
  if (api_callbacks) s.api_calls.reset(options.max_api_calls);
  std::string why = subscribe(s);
  if (why.empty()) why = enableKinds(s, api_callbacks);
  if (why.empty() && api_callbacks) why = switchOnApiCallbacks(s, options);
  if (!why.empty()) {
    abandonStart(s);
    return fail(std::move(why));
  }
  if (!api_callbacks) filterApiActivity(s, options);
  s.active = true;
  return true;
}

void CuptiCollector::stop() {
  State& s = *state_;
  if (!s.active) return;
  s.active = false;
  switchOff(s);
  // Forced: also hands back buffers whose last records are incomplete.
  CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (r != CUPTI_SUCCESS) s.warnings.push_back("CUPTI flush failed (" + cuptiError("cuptiActivityFlushAll", r) + ")");
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) {
    std::lock_guard lock(g_pool_mutex);
    s.dropped += dropped;
  }
  releaseCupti(s);

  uint64_t refused = 0;
  {
    std::lock_guard lock(g_pool_mutex);
    refused = s.refused_requests;
  }
  for (auto& [buffer, valid] : detachPool(s)) {
    s.converter.addBuffer(buffer, valid);
    std::free(buffer);
  }
  // The callbacks are off (switchOff): nothing writes these any more.
  for (const CUpti_ActivityAPI& call : s.api_calls.records())
    s.converter.add(reinterpret_cast<const CUpti_Activity*>(&call));
  for (const CUpti_ActivityExternalCorrelation& x : s.api_calls.externalIds())
    s.converter.add(reinterpret_cast<const CUpti_Activity*>(&x));
  const uint64_t api_dropped = s.api_calls.dropped();
  s.api_calls.reset(0);
  s.converter.finish(s.start_device);

  if (s.dropped > 0 || refused > 0)
    s.warnings.push_back("CUPTI dropped " + std::to_string(s.dropped) + " records: the buffer pool (" +
                         std::to_string(s.options.max_buffers) + " x " + std::to_string(s.options.buffer_bytes) +
                         " bytes) was full " + std::to_string(refused) + " times; capture fewer steps or raise the pool");
  if (api_dropped > 0) {
    s.warnings.push_back(std::to_string(api_dropped) + " CUDA calls were not recorded: more than " +
                         std::to_string(s.options.max_api_calls) + " in one capture; capture fewer steps");
    std::lock_guard lock(g_pool_mutex);
    s.dropped += api_dropped;
  }
  if (s.converter.incomplete() > 0)
    s.warnings.push_back(std::to_string(s.converter.incomplete()) +
                         " GPU records had no timestamps (GPU work still running when the capture stopped) and were skipped");
}

void CuptiCollector::appendTo(Trace& trace, int64_t from_ns) const {
  const State& s = *state_;
  cupti::appendEvents(s.converter, s.sm_facts, getpid(), trace, from_ns);
  trace.meta.dropped_records += s.dropped;
  for (const DeviceProperties& d : s.devices) {
    bool known = false;
    for (const DeviceProperties& have : trace.meta.devices) known |= have.id == d.id;
    if (!known) trace.meta.devices.push_back(d);
  }
  trace.meta.warnings.insert(trace.meta.warnings.end(), s.warnings.begin(), s.warnings.end());
}

uint64_t CuptiCollector::droppedRecords() const {
  std::lock_guard lock(g_pool_mutex);
  return state_->dropped;
}

uint64_t CuptiCollector::incompleteRecords() const { return state_->converter.incomplete(); }

size_t CuptiCollector::eventCount() const { return state_->converter.events().size(); }

uint64_t CuptiCollector::callsFilteredAfterRecording() const { return state_->converter.filteredNoise(); }

}  // namespace fuselab
