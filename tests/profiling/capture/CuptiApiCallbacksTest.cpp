// The callback-API recorder of CUDA calls without a GPU: the entry and exit
// callbacks CUPTI would make are replayed by hand; the records they leave must
// be what the activity API writes (kind, call id, correlation, thread, times),
// convert like activity records, and respect the capacity.
#ifdef FUSELAB_HAVE_CUPTI

#include "profiling/capture/CuptiApiCallbacks.h"

#include <cupti.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "profiling/capture/CuptiApiNames.h"
#include "profiling/capture/CuptiRecords.h"

namespace fuselab::cupti {
namespace {

// One call as CUPTI reports it: the entry, then the exit, sharing one
// correlation slot and id.
struct FakeCall {
  uint64_t slot = 0;
  CUpti_CallbackData data{};
  explicit FakeCall(uint32_t correlation) {
    data.correlationData = &slot;
    data.correlationId = correlation;
  }
  void enter(ApiCallbackRecorder& r, CUpti_CallbackDomain d, CUpti_CallbackId cbid) {
    data.callbackSite = CUPTI_API_ENTER;
    r.onCallback(d, cbid, data);
  }
  void exit(ApiCallbackRecorder& r, CUpti_CallbackDomain d, CUpti_CallbackId cbid) {
    data.callbackSite = CUPTI_API_EXIT;
    r.onCallback(d, cbid, data);
  }
};

uint32_t thisTid() { return uint32_t(::syscall(SYS_gettid)); }

TEST(CuptiApiCallbacks, EntryAndExitMakeOneActivityRecord) {
  ApiCallbackRecorder recorder;
  recorder.reset(16);
  FakeCall launch(41);
  launch.enter(recorder, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  EXPECT_TRUE(recorder.records().empty()) << "nothing is stored before the call returns";
  launch.exit(recorder, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  FakeCall driver(42);
  driver.enter(recorder, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx);
  driver.exit(recorder, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx);

  ASSERT_EQ(recorder.records().size(), 2u);
  const CUpti_ActivityAPI& r = recorder.records()[0];
  EXPECT_EQ(r.kind, CUPTI_ACTIVITY_KIND_RUNTIME);
  EXPECT_EQ(r.cbid, uint32_t(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
  EXPECT_EQ(r.correlationId, 41u);
  EXPECT_EQ(r.threadId, thisTid());
  EXPECT_EQ(r.processId, uint32_t(::getpid()));
  EXPECT_LE(r.start, r.end);
  EXPECT_NE(launch.slot, 0u) << "the entry stamps its time (cuptiGetTimestamp works without a GPU)";
  EXPECT_EQ(r.start, launch.slot) << "the start is the entry's stamp";
  const CUpti_ActivityAPI& d = recorder.records()[1];
  EXPECT_EQ(d.kind, CUPTI_ACTIVITY_KIND_DRIVER);
  EXPECT_EQ(d.correlationId, 42u);
  EXPECT_EQ(recorder.dropped(), 0u);
}

// cudaGraphLaunch calls cuGraphLaunch: one call, as the activity kinds report
// it (the GPU tests found both when the driver call was kept).
TEST(CuptiApiCallbacks, DriverCallsMadeByARuntimeCallAreNotCallsOfTheirOwn) {
  ApiCallbackRecorder recorder;
  recorder.reset(8);
  FakeCall runtime(60), nested(60), alone(61);
  runtime.enter(recorder, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000);
  nested.enter(recorder, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch);
  nested.exit(recorder, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch);
  runtime.exit(recorder, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000);
  alone.enter(recorder, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx);  // cuBLAS: straight to the driver
  alone.exit(recorder, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx);
  ASSERT_EQ(recorder.records().size(), 2u);
  EXPECT_EQ(recorder.records()[0].kind, CUPTI_ACTIVITY_KIND_RUNTIME);
  EXPECT_EQ(recorder.records()[0].cbid, uint32_t(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000));
  EXPECT_EQ(recorder.records()[1].kind, CUPTI_ACTIVITY_KIND_DRIVER);
  EXPECT_EQ(recorder.records()[1].correlationId, 61u);
}

TEST(CuptiApiCallbacks, AnExitWithoutItsEntryStartsWhereItEnds) {
  ApiCallbackRecorder recorder;
  recorder.reset(4);
  FakeCall call(7);  // entered before the callback was switched on: empty slot
  call.exit(recorder, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020);
  FakeCall future(8);
  future.slot = ~uint64_t(0);  // a stamp after the exit cannot be right either
  future.exit(recorder, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020);
  ASSERT_EQ(recorder.records().size(), 2u);
  for (const auto& r : recorder.records()) EXPECT_EQ(r.start, r.end);
}

TEST(CuptiApiCallbacks, OtherDomainsAreIgnored) {
  ApiCallbackRecorder recorder;
  recorder.reset(4);
  FakeCall call(9);
  call.enter(recorder, CUPTI_CB_DOMAIN_RESOURCE, 1);
  call.exit(recorder, CUPTI_CB_DOMAIN_RESOURCE, 1);
  EXPECT_TRUE(recorder.records().empty());
}

TEST(CuptiApiCallbacks, CallsPastTheCapacityAreCountedAsDropped) {
  ApiCallbackRecorder recorder;
  recorder.reset(3);
  for (uint32_t i = 0; i < 5; ++i) {
    FakeCall call(100 + i);
    call.enter(recorder, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020);
    call.exit(recorder, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020);
  }
  ASSERT_EQ(recorder.records().size(), 3u);
  EXPECT_EQ(recorder.records()[2].correlationId, 102u) << "the first calls are kept";
  EXPECT_EQ(recorder.dropped(), 2u);
  recorder.reset(3);
  EXPECT_TRUE(recorder.records().empty());
  EXPECT_EQ(recorder.dropped(), 0u);
}

// A clock of its own: libcupti without a GPU driver can hang when its first
// calls come from several threads at once (seen with CUDA 13.0); in a capture
// CUPTI is set up on the controlling thread before any callback.
std::atomic<uint64_t> g_fake_time{1};
uint64_t fakeClock() { return g_fake_time.fetch_add(1); }

TEST(CuptiApiCallbacks, CallsFromSeveralThreadsAreAllKept) {
  ApiCallbackRecorder recorder;
  recorder.reset(4000, &fakeClock);
  auto work = [&](uint32_t base) {
    for (uint32_t i = 0; i < 1000; ++i) {
      FakeCall call(base + i);
      call.enter(recorder, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
      call.exit(recorder, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
    }
  };
  std::thread a(work, 0), b(work, 10000), c(work, 20000);
  work(30000);
  a.join();
  b.join();
  c.join();
  EXPECT_EQ(recorder.records().size(), 4000u);
  EXPECT_EQ(recorder.dropped(), 0u);
  std::set<uint32_t> threads, correlations;
  for (const auto& r : recorder.records()) {
    threads.insert(r.threadId);
    correlations.insert(r.correlationId);
    EXPECT_LT(r.start, r.end);
  }
  EXPECT_EQ(threads.size(), 4u);
  EXPECT_EQ(correlations.size(), 4000u);
}

TEST(CuptiApiCallbacks, RecordsConvertLikeActivityRecords) {
  ApiCallbackRecorder recorder;
  recorder.reset(8);
  FakeCall launch(55);
  launch.enter(recorder, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  launch.exit(recorder, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  RecordConverter converter;
  for (const auto& r : recorder.records()) converter.add(reinterpret_cast<const CUpti_Activity*>(&r));
  converter.finish(0);
  ASSERT_EQ(converter.events().size(), 1u);
  const CuptiEvent& e = converter.events()[0];
  EXPECT_EQ(e.category, Category::CudaRuntime);
  EXPECT_EQ(converter.names()[e.name], "cudaLaunchKernel");
  EXPECT_EQ(e.correlation, 55);
  EXPECT_EQ(e.thread_id, thisTid());
}

TEST(CuptiApiCallbacks, CallsMadeUnderAPushedExternalIdCarryIt) {
  ApiCallbackRecorder recorder;
  recorder.reset(8);
  auto call = [&](uint32_t correlation) {
    FakeCall c(correlation);
    c.enter(recorder, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020);
    c.exit(recorder, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020);
  };
  pushThreadExternalId(700);
  pushThreadExternalId(777);
  call(1);  // the innermost id
  popThreadExternalId();
  call(2);
  popThreadExternalId();
  call(3);  // untagged
  popThreadExternalId();  // one pop too many is harmless
  ASSERT_EQ(recorder.externalIds().size(), 2u);
  EXPECT_EQ(recorder.externalIds()[0].correlationId, 1u);
  EXPECT_EQ(recorder.externalIds()[0].externalId, 777u);
  EXPECT_EQ(recorder.externalIds()[1].correlationId, 2u);
  EXPECT_EQ(recorder.externalIds()[1].externalId, 700u);

  RecordConverter converter;
  for (const auto& r : recorder.records()) converter.add(reinterpret_cast<const CUpti_Activity*>(&r));
  for (const auto& x : recorder.externalIds()) converter.add(reinterpret_cast<const CUpti_Activity*>(&x));
  converter.finish(0);
  std::map<int64_t, int64_t> external;  // correlation -> external id
  for (const CuptiEvent& e : converter.events()) external[e.correlation] = e.external_id;
  EXPECT_EQ(external[1], 777);
  EXPECT_EQ(external[2], 700);
  EXPECT_EQ(external[3], -1);
}

TEST(CuptiApiCallbacks, TheQuietCallsAreTheKnownOnesWithoutTheNoise) {
  const ApiTable& table = ApiTable::instance();
  auto quiet = table.quietIds(ApiDomain::Runtime);
  auto has = [&](uint32_t id) { return std::find(quiet.begin(), quiet.end(), id) != quiet.end(); };
  EXPECT_TRUE(has(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
  EXPECT_TRUE(has(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020));
  EXPECT_TRUE(has(CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020));
  EXPECT_FALSE(has(CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020));
  EXPECT_FALSE(has(CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020));
  for (uint32_t id : table.noisyIds(ApiDomain::Runtime)) EXPECT_FALSE(has(id)) << table.name(ApiDomain::Runtime, id);
  auto quiet_driver = table.quietIds(ApiDomain::Driver);
  EXPECT_NE(std::find(quiet_driver.begin(), quiet_driver.end(), uint32_t(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx)),
            quiet_driver.end());
  EXPECT_EQ(std::find(quiet_driver.begin(), quiet_driver.end(), uint32_t(CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent)),
            quiet_driver.end());
}

}  // namespace
}  // namespace fuselab::cupti

#endif  // FUSELAB_HAVE_CUPTI
