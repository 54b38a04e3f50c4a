// The CUPTI collector on a real GPU: subscription lifecycle, kernels from
// LibTorch linked to their launch on this thread, memset/memcpy records, the
// noise filter (each with CUDA calls from the activity kinds and from
// callbacks), the bounded buffer pool, and handing CUPTI back to LibTorch's
// own profiler. Skips (visibly) without a GPU.
#include "profiling/capture/CuptiCollector.h"

#include <gtest/gtest.h>

#ifdef FUSELAB_HAVE_CUPTI

#include <ATen/ATen.h>
#include <cuda_runtime_api.h>
#include <sys/syscall.h>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <unistd.h>

#include <ctime>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace fuselab {
namespace {

using nlohmann::json;

std::string noGpuReason() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e);
  }
  return n == 0 ? "the CUDA runtime sees no device" : "";
}

#define SKIP_WITHOUT_GPU()                                                      \
  do {                                                                          \
    if (std::string why = noGpuReason(); !why.empty()) GTEST_SKIP() << "no CUDA GPU: " << why; \
  } while (0)

int64_t realtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int64_t thisTid() { return int64_t(syscall(SYS_gettid)); }

struct Captured {
  Trace trace;
  uint64_t dropped = 0;
  uint64_t incomplete = 0;
  uint64_t filtered_after_recording = 0;
  int64_t cpu_before_ns = 0;  // nowNs() / CLOCK_REALTIME around the work
  int64_t cpu_after_ns = 0;
  int64_t realtime_before_ns = 0;
  int64_t realtime_after_ns = 0;
};

// start, work, synchronize, stop, appendTo, finalize. Fails the test if start fails.
Captured capture(const std::function<void()>& work, CuptiOptions options = {}) {
  Captured out;
  CuptiCollector collector;
  std::string error;
  bool started = collector.start(options, &error);
  EXPECT_TRUE(started) << error;
  if (!started) return out;
  out.realtime_before_ns = realtimeNs();
  out.cpu_before_ns = CuptiCollector::nowNs();
  work();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  out.cpu_after_ns = CuptiCollector::nowNs();
  out.realtime_after_ns = realtimeNs();
  collector.stop();
  collector.stop();  // idempotent
  collector.appendTo(out.trace);
  out.trace.finalize();
  out.dropped = collector.droppedRecords();
  out.incomplete = collector.incompleteRecords();
  out.filtered_after_recording = collector.callsFilteredAfterRecording();
  return out;
}

std::vector<EventRef> eventsOf(const Trace& t, Category c) {
  std::vector<EventRef> out;
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti)
    for (uint32_t i = 0; i < t.tracks[ti].size(); ++i)
      if (t.tracks[ti].category[i] == c) out.push_back({ti, i});
  return out;
}

std::vector<EventRef> eventsNamed(const Trace& t, std::string_view name) {
  std::vector<EventRef> out;
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti)
    for (uint32_t i = 0; i < t.tracks[ti].size(); ++i)
      if (t.name({ti, i}) == name) out.push_back({ti, i});
  return out;
}

json argsOf(const Trace& t, EventRef r) { return json::parse(t.argsJson(t.tracks[r.track].args[r.index])); }

// The launch call of a GPU op: on this process's track for this thread, begun
// before the op started.
void expectLaunchedFromThisThread(const Trace& t, EventRef op, std::string_view expected_launch = {}) {
  const Track& gt = t.tracks[op.track];
  int64_t corr = gt.correlation[op.index];
  ASSERT_GE(corr, 0) << t.name(op);
  const LaunchLink* link = t.launchFor(corr);
  ASSERT_NE(link, nullptr) << t.name(op);
  ASSERT_TRUE(link->launch.has_value()) << "no launch call for " << t.name(op);
  const Track& ct = t.tracks[link->launch->track];
  EXPECT_EQ(ct.kind, TrackKind::Cpu);
  EXPECT_EQ(ct.pid, int64_t(getpid()));
  EXPECT_EQ(ct.tid, thisTid()) << "launch call not on this thread's gettid() track";
  EXPECT_GE(gt.start_ns[op.index], ct.start_ns[link->launch->index]) << t.name(op) << " started before its launch";
  if (!expected_launch.empty()) EXPECT_EQ(t.name(*link->launch), expected_launch);
}

// The tests of what gets recorded run once per source of the CUDA call
// records (activity kinds, callbacks): both must give the same trace.
class CuptiCollectorCalls : public testing::TestWithParam<CuptiApiSource> {
 protected:
  Captured capture(const std::function<void()>& work, CuptiOptions options = {}) {
    options.api_source = GetParam();
    return fuselab::capture(work, options);
  }
};

INSTANTIATE_TEST_SUITE_P(ApiSources, CuptiCollectorCalls,
                         testing::Values(CuptiApiSource::ActivityKinds, CuptiApiSource::Callbacks),
                         [](const testing::TestParamInfo<CuptiApiSource>& info) {
                           return info.param == CuptiApiSource::Callbacks ? "Callbacks" : "ActivityKinds";
                         });

TEST(CuptiCollectorGpu, SubscriptionCanBeMadeAndReleasedTwice) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(CuptiCollector::compiledIn());
  for (int round = 0; round < 2; ++round) {
    CuptiCollector collector;
    std::string error;
    ASSERT_TRUE(collector.start(CuptiOptions{}, &error)) << "round " << round << ": " << error;
    collector.stop();
  }
  CuptiCollector reused;  // one object, started twice
  std::string error;
  ASSERT_TRUE(reused.start(CuptiOptions{}, &error)) << error;
  reused.stop();
  ASSERT_TRUE(reused.start(CuptiOptions{}, &error)) << error;
  reused.stop();
}

TEST_P(CuptiCollectorCalls, LibTorchKernelLinksToItsLaunchOnThisThread) {
  SKIP_WITHOUT_GPU();
  auto opts = at::TensorOptions().device(at::kCUDA).dtype(at::kFloat);
  at::Tensor warm = at::ones({1 << 16}, opts) + 1;  // context, modules, allocator: outside the capture
  cudaDeviceSynchronize();
  at::Tensor result;
  Captured c = capture([&] {
    at::Tensor x = at::ones({1 << 16}, opts);
    result = x + x;
  });
  const Trace& t = c.trace;
  auto kernels = eventsOf(t, Category::Kernel);
  ASSERT_GE(kernels.size(), 2u) << "expected the fill of ones() and the add";
  int device = 0;
  cudaGetDevice(&device);
  bool any_aten = false;
  for (EventRef k : kernels) {
    std::string name(t.name(k));
    EXPECT_NE(name.rfind("_Z", 0), 0u) << "not demangled: " << name;
    any_aten |= name.find("at::native") != std::string::npos;
    const Track& gt = t.tracks[k.track];
    EXPECT_EQ(gt.kind, TrackKind::Gpu);
    EXPECT_EQ(gt.device, device);
    EXPECT_EQ(t.strings.get(gt.process_name_id), "GPU " + std::to_string(device));
    EXPECT_EQ(t.strings.get(gt.thread_name_id), "stream " + std::to_string(gt.stream));
    json a = argsOf(t, k);
    EXPECT_EQ(a["correlation"], gt.correlation[k.index]);
    EXPECT_EQ(a["stream"], gt.stream);
    EXPECT_EQ(a["grid"].size(), 3u);
    EXPECT_EQ(a["block"].size(), 3u);
    expectLaunchedFromThisThread(t, k);
    const LaunchLink* link = t.launchFor(gt.correlation[k.index]);
    if (!link || !link->launch) continue;
    EXPECT_TRUE(isLaunchCall(t.tracks[link->launch->track].category[link->launch->index]));
    std::cout << "[ info ] " << t.name(*link->launch) << " -> " << name.substr(0, 80) << "\n";
  }
  EXPECT_TRUE(any_aten) << "no at::native kernel among " << kernels.size();
  EXPECT_EQ(c.dropped, 0u);
  EXPECT_EQ(t.meta.dropped_records, 0u);
  EXPECT_EQ(c.incomplete, 0u);

  // One clock: CPU timestamps taken with nowNs() (and CLOCK_REALTIME) bracket
  // the runtime calls CUPTI recorded.
  for (EventRef r : eventsOf(t, Category::CudaRuntime)) {
    int64_t s = t.tracks[r.track].start_ns[r.index];
    EXPECT_GE(s, c.cpu_before_ns) << t.name(r);
    EXPECT_LE(s, c.cpu_after_ns) << t.name(r);
    EXPECT_GE(s, c.realtime_before_ns - 1'000'000) << "CUPTI clock is not CLOCK_REALTIME";
    EXPECT_LE(s, c.realtime_after_ns + 1'000'000) << "CUPTI clock is not CLOCK_REALTIME";
  }

  ASSERT_FALSE(t.meta.devices.empty());
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, device), cudaSuccess);
  bool found = false;
  for (const DeviceProperties& d : t.meta.devices) {
    if (d.id != device) continue;
    found = true;
    EXPECT_EQ(d.name, prop.name);
    json j = json::parse(d.json);
    EXPECT_EQ(j["numSms"], prop.multiProcessorCount);
    EXPECT_EQ(j["computeMajor"], prop.major);
    EXPECT_EQ(j["totalGlobalMem"], prop.totalGlobalMem);
  }
  EXPECT_TRUE(found);
}

TEST_P(CuptiCollectorCalls, MemsetAndMemcpyRecordsForRuntimeCalls) {
  SKIP_WITHOUT_GPU();
  const size_t n = 1 << 20;
  void* dev = nullptr;
  void* host = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, n), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&host, n), cudaSuccess);
  Captured c = capture([&] {
    cudaMemset(dev, 1, n);
    cudaMemcpy(host, dev, n, cudaMemcpyDeviceToHost);
    cudaMemcpy(dev, host, n, cudaMemcpyHostToDevice);
  });
  cudaFree(dev);
  cudaFreeHost(host);
  const Trace& t = c.trace;

  auto memsets = eventsOf(t, Category::Memset);
  ASSERT_EQ(memsets.size(), 1u);
  EXPECT_EQ(t.name(memsets[0]), "Memset (Device)");
  EXPECT_EQ(argsOf(t, memsets[0])["bytes"], n);
  expectLaunchedFromThisThread(t, memsets[0], "cudaMemset");

  auto dtoh = eventsNamed(t, "Memcpy DtoH (Device -> Pinned)");
  auto htod = eventsNamed(t, "Memcpy HtoD (Pinned -> Device)");
  ASSERT_EQ(dtoh.size(), 1u);
  ASSERT_EQ(htod.size(), 1u);
  for (EventRef m : {dtoh[0], htod[0]}) {
    EXPECT_EQ(t.tracks[m.track].category[m.index], Category::Memcpy);
    json a = argsOf(t, m);
    EXPECT_EQ(a["bytes"], n);
    EXPECT_GT(a["memory bandwidth (GB/s)"].get<double>(), 0.0);
    expectLaunchedFromThisThread(t, m, "cudaMemcpy");
  }
  // Copies on one stream run in the order they were issued.
  EXPECT_LE(t.tracks[dtoh[0].track].end_ns(dtoh[0].index), t.tracks[htod[0].track].start_ns[htod[0].index]);
}

TEST_P(CuptiCollectorCalls, NoisyRuntimeCallsAreNotRecorded) {
  SKIP_WITHOUT_GPU();
  void* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, 64), cudaSuccess);
  Captured c = capture([&] {
    for (int i = 0; i < 50; ++i) {
      int d = 0, count = 0, sms = 0;
      cudaStreamCaptureStatus status{};
      cudaGetDevice(&d);
      cudaGetDeviceCount(&count);
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d);
      cudaStreamIsCapturing(nullptr, &status);
      cudaGetLastError();
      cudaPeekAtLastError();
    }
    cudaMemsetAsync(dev, 0, 64, nullptr);
  });
  cudaFree(dev);
  const Trace& t = c.trace;
  for (const char* noisy : {"cudaGetDevice", "cudaGetDeviceCount", "cudaDeviceGetAttribute", "cudaStreamIsCapturing",
                            "cudaGetLastError", "cudaPeekAtLastError"})
    EXPECT_TRUE(eventsNamed(t, noisy).empty()) << noisy << " was recorded";
  EXPECT_EQ(eventsNamed(t, "cudaMemsetAsync").size(), 1u) << "the capture itself worked";
  std::cout << "[ info ] calls switched off but recorded by CUPTI (dropped in conversion): "
            << c.filtered_after_recording << " of 300 noisy calls\n";
  if (GetParam() == CuptiApiSource::Callbacks)
    EXPECT_EQ(c.filtered_after_recording, 0u) << "callbacks are only switched on for the calls kept";
  // No warning that the source filter failed.
  for (const std::string& w : t.meta.warnings) EXPECT_EQ(w.find("noisy"), std::string::npos) << w;
}

TEST(CuptiCollectorGpu, ASecondCollectorIsRefusedWhileOneIsActive) {
  SKIP_WITHOUT_GPU();
  CuptiCollector first;
  std::string error;
  ASSERT_TRUE(first.start(CuptiOptions{}, &error)) << error;
  CuptiCollector second;
  std::string refused;
  EXPECT_FALSE(second.start(CuptiOptions{}, &refused));
  EXPECT_NE(refused.find("CUPTI is in use by another profiler"), std::string::npos) << refused;
  EXPECT_NE(refused.find("capturing CPU only"), std::string::npos) << refused;
  second.stop();  // a refused collector has nothing to stop
  first.stop();
  EXPECT_TRUE(second.start(CuptiOptions{}, &error)) << "after the first stopped: " << error;
  second.stop();
}

TEST_P(CuptiCollectorCalls, ExternalIdsTagTheCallAndItsGpuWork) {
  SKIP_WITHOUT_GPU();
  void* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, 256), cudaSuccess);
  Captured c = capture([&] {
    CuptiCollector::pushExternalId(777);
    cudaMemsetAsync(dev, 0, 256, nullptr);
    CuptiCollector::popExternalId();
    cudaMemsetAsync(dev, 1, 256, nullptr);  // untagged
  });
  cudaFree(dev);
  const Trace& t = c.trace;
  auto memsets = eventsOf(t, Category::Memset);
  ASSERT_EQ(memsets.size(), 2u);
  EventRef tagged = memsets[0], untagged = memsets[1];  // sorted by start
  EXPECT_EQ(t.tracks[tagged.track].external_id[tagged.index], 777);
  EXPECT_EQ(argsOf(t, tagged)["External id"], 777);
  EXPECT_EQ(t.tracks[untagged.track].external_id[untagged.index], -1);
  const LaunchLink* link = t.launchFor(t.tracks[tagged.track].correlation[tagged.index]);
  ASSERT_TRUE(link && link->launch);
  EXPECT_EQ(t.tracks[link->launch->track].external_id[link->launch->index], 777);
}

TEST_P(CuptiCollectorCalls, SynchronizationLandsOnTheDeviceTimeline) {
  SKIP_WITHOUT_GPU();
  void* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, 1 << 20), cudaSuccess);
  Captured c = capture([&] {
    cudaMemsetAsync(dev, 0, 1 << 20, nullptr);
    cudaStreamSynchronize(nullptr);
    cudaMemsetAsync(dev, 0, 1 << 20, nullptr);
    cudaDeviceSynchronize();
  });
  cudaFree(dev);
  const Trace& t = c.trace;
  auto syncs = eventsOf(t, Category::Sync);
  ASSERT_FALSE(syncs.empty());
  int device = 0;
  cudaGetDevice(&device);
  std::set<std::string> names;
  for (EventRef s : syncs) {
    names.insert(std::string(t.name(s)));
    EXPECT_EQ(t.tracks[s.track].kind, TrackKind::Gpu);
    EXPECT_EQ(t.tracks[s.track].device, device);
    EXPECT_EQ(argsOf(t, s)["device"], device);
  }
  EXPECT_TRUE(names.count("Stream Sync") || names.count("Context Sync")) << *names.begin();
}

TEST(CuptiCollectorGpu, AFullBufferPoolDropsRecordsAndSaysSo) {
  SKIP_WITHOUT_GPU();
  void* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, 4), cudaSuccess);
  CuptiOptions tiny;
  tiny.buffer_bytes = 64 << 10;
  tiny.max_buffers = 1;
  // ~130 bytes of records per memset (runtime call + memset): far over 64 KiB.
  Captured c = capture([&] {
    for (int i = 0; i < 4000; ++i) cudaMemsetAsync(dev, 0, 4, nullptr);
  }, tiny);
  cudaFree(dev);
  EXPECT_GT(c.dropped, 0u);
  EXPECT_EQ(c.trace.meta.dropped_records, c.dropped);
  bool warned = false;
  for (const std::string& w : c.trace.meta.warnings) warned |= w.find("dropped") != std::string::npos;
  EXPECT_TRUE(warned);
  EXPECT_LT(eventsOf(c.trace, Category::Memset).size(), 4000u);
}

// cuBLAS launches its GEMMs through the driver (cuLaunchKernelEx on Hopper):
// they must still link to a launch while the rest of the driver API is off.
TEST_P(CuptiCollectorCalls, CublasGemmKernelsLinkToTheirLaunch) {
  SKIP_WITHOUT_GPU();
  auto opts = at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16);
  at::Tensor x = at::randn({64, 768}, opts), w = at::randn({3072, 768}, opts);
  at::Tensor y = at::matmul(x, w.t());  // cuBLAS handle and workspace: outside the capture
  cudaDeviceSynchronize();
  Captured c = capture([&] { y = at::matmul(x, w.t()); });
  const Trace& t = c.trace;
  auto kernels = eventsOf(t, Category::Kernel);
  ASSERT_FALSE(kernels.empty());
  for (EventRef k : kernels) {
    expectLaunchedFromThisThread(t, k);
    const LaunchLink* link = t.launchFor(t.tracks[k.track].correlation[k.index]);
    if (link && link->launch)
      std::cout << "[ info ] " << t.name(*link->launch) << " -> " << std::string(t.name(k)).substr(0, 80) << "\n";
  }
  EXPECT_TRUE(eventsOf(t, Category::CudaDriver).size() <= kernels.size())
      << "with driver_api off only launch calls come from the driver";
  std::cout << "[ info ] driver/runtime calls switched off but recorded by CUPTI: " << c.filtered_after_recording << "\n";
}

TEST_P(CuptiCollectorCalls, DriverApiOptionAddsDriverCallsButNotTheirNoise) {
  SKIP_WITHOUT_GPU();
  auto opts = at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16);
  at::Tensor x = at::randn({64, 768}, opts), w = at::randn({3072, 768}, opts);
  at::Tensor y = at::matmul(x, w.t());
  cudaDeviceSynchronize();
  CuptiOptions with_driver;
  with_driver.driver_api = true;
  Captured c = capture([&] { y = at::gelu(at::matmul(x, w.t())); }, with_driver);
  const Trace& t = c.trace;
  auto kernels = eventsOf(t, Category::Kernel);
  ASSERT_GE(kernels.size(), 2u);
  for (EventRef k : kernels) expectLaunchedFromThisThread(t, k);
  std::map<std::string, int> driver_calls;
  for (EventRef d : eventsOf(t, Category::CudaDriver)) ++driver_calls[std::string(t.name(d))];
  for (const auto& [name, count] : driver_calls) std::cout << "[ info ] driver call " << name << " x" << count << "\n";
  for (const char* noisy : {"cuCtxGetCurrent", "cuCtxSetCurrent", "cuDeviceGetAttribute", "cuGetProcAddress_v2",
                            "cuStreamIsCapturing", "cuDevicePrimaryCtxGetState"})
    EXPECT_EQ(driver_calls.count(noisy), 0u) << noisy << " was recorded";
}

// Last, also when this program is run directly (ctest runs each test in a
// process of its own): LibTorch's Kineto profiler may keep CUPTI after it ran.
// A parameterized suite of its own, because those run after the plain tests,
// in the order they are defined.
class CuptiCollectorLast : public testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(AfterTheOthers, CuptiCollectorLast, testing::Values(0));

TEST_P(CuptiCollectorLast, LibTorchProfilerRunsAfterUs) {
  SKIP_WITHOUT_GPU();
  {
    Captured ours = capture([] { at::ones({256}, at::TensorOptions().device(at::kCUDA)); });
    ASSERT_FALSE(eventsOf(ours.trace, Category::Kernel).empty());
  }
  namespace prof = torch::autograd::profiler;
  using torch::profiler::impl::ActivityType;
  torch::profiler::impl::ProfilerConfig config(torch::profiler::impl::ProfilerState::KINETO);
  std::set<ActivityType> activities{ActivityType::CPU, ActivityType::CUDA};
  prof::prepareProfiler(config, activities);
  prof::enableProfiler(config, activities);
  at::Tensor y = at::ones({256}, at::TensorOptions().device(at::kCUDA)) * 3;
  cudaDeviceSynchronize();
  auto result = prof::disableProfiler();
  ASSERT_TRUE(result);
  size_t gpu_events = 0;
  for (const auto& e : result->events()) gpu_events += e.deviceType() == c10::DeviceType::CUDA;
  EXPECT_GT(gpu_events, 0u) << "LibTorch's profiler saw no GPU work after fuselab released CUPTI";

  // And back: either CUPTI is free again or the refusal is explained.
  CuptiCollector again;
  std::string error;
  if (again.start(CuptiOptions{}, &error)) {
    again.stop();
    std::cout << "[ info ] fuselab's collector started again after LibTorch's profiler\n";
  } else {
    EXPECT_NE(error.find("CUPTI"), std::string::npos) << error;
    std::cout << "[ info ] after LibTorch's profiler: " << error << "\n";
  }
}

}  // namespace
}  // namespace fuselab

#else  // CPU-only build

TEST(CuptiCollectorGpu, NeedsACudaBuild) { GTEST_SKIP() << "no CUDA GPU: fuselab was built without CUDA/CUPTI"; }

#endif  // FUSELAB_HAVE_CUPTI
