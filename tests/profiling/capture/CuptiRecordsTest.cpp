// CUPTI record conversion without a GPU: records are rebuilt from the events
// of real torch.profiler (Kineto) traces, converted, and compared with what
// Kineto wrote for them (names, args, tracks, launch links).
#ifdef FUSELAB_HAVE_CUPTI

#include "profiling/capture/CuptiRecords.h"

#include <cupti.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "profiling/capture/CuptiApiNames.h"
#include "tests/support/TestPaths.h"

namespace fuselab::cupti {
namespace {

using nlohmann::json;

json readFixture(const std::string& name) {
  auto path = test::fixture(name);
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open fixture " + path.string());
  std::string text;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, size_t(n));
  gzclose(f);
  return json::parse(text);
}

std::vector<json> eventsOf(const json& trace, const std::string& cat) {
  std::vector<json> out;
  for (const auto& e : trace["traceEvents"])
    if (e.value("ph", "") == "X" && e.value("cat", "") == cat) out.push_back(e);
  return out;
}

// Kineto writes microseconds with three decimals: whole nanoseconds.
uint64_t ns(double us) { return uint64_t(std::llround(us * 1000.0)); }

CUpti_ActivityKernel10 kernelRecord(const json& e) {
  CUpti_ActivityKernel10 r;
  std::memset(&r, 0, sizeof r);
  const json& a = e["args"];
  r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  r.start = ns(e["ts"].get<double>());
  r.end = r.start + ns(e["dur"].get<double>());
  r.deviceId = a["device"];
  r.contextId = a["context"];
  r.streamId = a["stream"];
  r.correlationId = a["correlation"];
  r.registersPerThread = a["registers per thread"];
  int64_t shared = a["shared memory"];
  r.staticSharedMemory = int32_t(shared / 3);  // any split: args report the sum
  r.dynamicSharedMemory = int32_t(shared - shared / 3);
  r.gridX = a["grid"][0], r.gridY = a["grid"][1], r.gridZ = a["grid"][2];
  r.blockX = a["block"][0], r.blockY = a["block"][1], r.blockZ = a["block"][2];
  r.name = nullptr;
  return r;
}

CUpti_ActivityAPI apiRecord(const json& e, bool driver, uint32_t thread) {
  CUpti_ActivityAPI r;
  std::memset(&r, 0, sizeof r);
  r.kind = driver ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME;
  r.cbid = e["args"]["cbid"];
  r.start = ns(e["ts"].get<double>());
  r.end = r.start + ns(e["dur"].get<double>());
  r.threadId = thread;
  r.correlationId = e["args"]["correlation"];
  return r;
}

// Inverse of Kineto's spellings, written out here so the test does not reuse
// the code under test.
const std::map<std::string, uint32_t> kCopyKinds = {{"HtoD", CUPTI_ACTIVITY_MEMCPY_KIND_HTOD},
                                                    {"DtoH", CUPTI_ACTIVITY_MEMCPY_KIND_DTOH},
                                                    {"DtoD", CUPTI_ACTIVITY_MEMCPY_KIND_DTOD},
                                                    {"HtoH", CUPTI_ACTIVITY_MEMCPY_KIND_HTOH}};
const std::map<std::string, uint32_t> kMemoryKinds = {{"Pageable", CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE},
                                                      {"Pinned", CUPTI_ACTIVITY_MEMORY_KIND_PINNED},
                                                      {"Device", CUPTI_ACTIVITY_MEMORY_KIND_DEVICE}};

TEST(CuptiApiNames, VersionAndStreamSuffixes) {
  EXPECT_EQ(withoutVersionSuffix("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(withoutVersionSuffix("cudaStreamGetCaptureInfo_v2_v11030"), "cudaStreamGetCaptureInfo_v2");
  EXPECT_EQ(withoutVersionSuffix("cuMemcpyHtoD_v2"), "cuMemcpyHtoD_v2");  // real symbol, kept
  EXPECT_EQ(withoutVersionSuffix("cuLaunchKernelEx"), "cuLaunchKernelEx");
  EXPECT_EQ(baseCallName("cudaMemsetAsync_ptsz"), "cudaMemsetAsync");
  EXPECT_EQ(baseCallName("cudaStreamGetCaptureInfo_v2_ptsz"), "cudaStreamGetCaptureInfo");
}

TEST(CuptiApiNames, NoiseAndLaunchClassification) {
  for (const char* n : {"cudaGetDevice", "cudaGetLastError", "cudaPeekAtLastError", "cudaGetDeviceCount",
                        "cudaStreamIsCapturing", "cudaStreamIsCapturing_ptsz", "cudaDeviceGetAttribute"})
    EXPECT_TRUE(isNoisyRuntimeCall(n)) << n;
  for (const char* n : {"cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaDeviceSynchronize",
                        "cudaGraphLaunch", "cudaSetDevice", "cudaGetDeviceFlags", "cudaMalloc"})
    EXPECT_FALSE(isNoisyRuntimeCall(n)) << n;
  EXPECT_TRUE(isNoisyDriverCall("cuCtxGetCurrent"));
  EXPECT_TRUE(isNoisyDriverCall("cuCtxPushCurrent_v2"));
  EXPECT_FALSE(isNoisyDriverCall("cuLaunchKernelEx"));
  EXPECT_TRUE(isDriverLaunchCall("cuLaunchKernelEx"));
  EXPECT_TRUE(isDriverLaunchCall("cuLaunchKernel_ptsz"));
  EXPECT_TRUE(isDriverLaunchCall("cuGraphLaunch"));
  EXPECT_FALSE(isDriverLaunchCall("cuMemAlloc_v2"));
}

TEST(CuptiApiNames, TableReadsCuptiNamesWithoutAGpu) {
  const ApiTable& t = ApiTable::instance();
  EXPECT_EQ(t.name(ApiDomain::Runtime, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000), "cudaLaunchKernel");
  EXPECT_EQ(t.name(ApiDomain::Driver, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx), "cuLaunchKernelEx");
  EXPECT_EQ(t.name(ApiDomain::Runtime, 1u << 20), "");
  auto noisy = t.noisyIds(ApiDomain::Runtime);
  auto has = [](const std::vector<uint32_t>& v, uint32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  EXPECT_TRUE(has(noisy, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020));
  EXPECT_TRUE(has(noisy, CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000));
  EXPECT_FALSE(has(noisy, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
  auto launches = t.driverLaunchIds();
  EXPECT_TRUE(has(launches, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
  EXPECT_TRUE(has(launches, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx));
  EXPECT_FALSE(has(launches, CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent));
}

TEST(CuptiRecords, DemanglesKernelNames) {
  EXPECT_EQ(demangle("_Z6squarePfi"), "square(float*, int)");
  EXPECT_EQ(demangle("_ZN2at6native4fillIfEEvPT_i"), "void at::native::fill<float>(float*, int)");
  EXPECT_EQ(demangle("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT"), "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT");

  RecordConverter c;
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 10, k.end = 20;
  k.name = "_Z6squarePfi";
  c.add(reinterpret_cast<const CUpti_Activity*>(&k));
  c.add(reinterpret_cast<const CUpti_Activity*>(&k));
  ASSERT_EQ(c.events().size(), 2u);
  EXPECT_EQ(c.names()[c.events()[0].name], "square(float*, int)");
  EXPECT_EQ(c.events()[0].name, c.events()[1].name);
}

TEST(CuptiRecords, KernelArgsMatchKineto) {
  json trace = readFixture("mlp_eager.json.gz");
  const json& dev = trace["deviceProperties"][0];
  SmFacts sm{dev["numSms"].get<int>(), dev["warpSize"].get<int>()};
  auto kernels = eventsOf(trace, "kernel");
  ASSERT_FALSE(kernels.empty());
  for (const json& e : kernels) {
    RecordConverter c;
    CUpti_ActivityKernel10 r = kernelRecord(e);
    c.add(reinterpret_cast<const CUpti_Activity*>(&r));
    c.finish(0);
    ASSERT_EQ(c.events().size(), 1u);
    const CuptiEvent& ev = c.events()[0];
    EXPECT_EQ(ev.category, Category::Kernel);
    EXPECT_TRUE(ev.on_gpu);
    EXPECT_EQ(ev.end_ns - ev.start_ns, int64_t(ns(e["dur"].get<double>())));
    json ours = json::parse(argsJson(ev, &sm));
    const json& theirs = e["args"];
    for (const char* key : {"device", "context", "stream", "correlation", "registers per thread", "shared memory",
                            "grid", "block"})
      EXPECT_EQ(ours[key], theirs[key]) << key << " of " << e["name"];
    // Kineto rounds these to float precision.
    for (const char* key : {"blocks per SM", "warps per SM"})
      EXPECT_NEAR(ours[key].get<double>(), theirs[key].get<double>(), 1e-5 * theirs[key].get<double>()) << key;
  }
}

TEST(CuptiRecords, MemcpyAndMemsetNamesAndBandwidthMatchKineto) {
  json trace = readFixture("multistream_memcpy.json.gz");
  auto copies = eventsOf(trace, "gpu_memcpy");
  auto sets = eventsOf(trace, "gpu_memset");
  ASSERT_FALSE(copies.empty());
  ASSERT_FALSE(sets.empty());
  for (const json& e : copies) {
    // "Memcpy HtoD (Pinned -> Device)"
    std::string name = e["name"];
    std::string dir = name.substr(7, 4);
    size_t open = name.find('('), arrow = name.find(" -> "), close = name.find(')');
    std::string src = name.substr(open + 1, arrow - open - 1), dst = name.substr(arrow + 4, close - arrow - 4);
    CUpti_ActivityMemcpy6 r;
    std::memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    r.copyKind = uint8_t(kCopyKinds.at(dir));
    r.srcKind = uint8_t(kMemoryKinds.at(src));
    r.dstKind = uint8_t(kMemoryKinds.at(dst));
    r.bytes = e["args"]["bytes"];
    r.start = ns(e["ts"].get<double>());
    r.end = r.start + ns(e["dur"].get<double>());
    r.deviceId = e["args"]["device"];
    r.contextId = e["args"]["context"];
    r.streamId = e["args"]["stream"];
    r.correlationId = e["args"]["correlation"];
    RecordConverter c;
    c.add(reinterpret_cast<const CUpti_Activity*>(&r));
    ASSERT_EQ(c.events().size(), 1u);
    EXPECT_EQ(c.names()[c.events()[0].name], name);
    EXPECT_EQ(c.events()[0].category, Category::Memcpy);
    json ours = json::parse(argsJson(c.events()[0], nullptr));
    EXPECT_EQ(ours["bytes"], e["args"]["bytes"]);
    EXPECT_EQ(ours["stream"], e["args"]["stream"]);
    EXPECT_EQ(ours["correlation"], e["args"]["correlation"]);
    double bw = e["args"]["memory bandwidth (GB/s)"];
    EXPECT_NEAR(ours["memory bandwidth (GB/s)"].get<double>(), bw, 1e-3 * bw);
  }
  for (const json& e : sets) {
    CUpti_ActivityMemset4 r;
    std::memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    r.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    r.bytes = e["args"]["bytes"];
    r.start = ns(e["ts"].get<double>());
    r.end = r.start + ns(e["dur"].get<double>());
    r.streamId = e["args"]["stream"];
    r.correlationId = e["args"]["correlation"];
    RecordConverter c;
    c.add(reinterpret_cast<const CUpti_Activity*>(&r));
    ASSERT_EQ(c.events().size(), 1u);
    EXPECT_EQ(c.names()[c.events()[0].name], e["name"].get<std::string>());
    json ours = json::parse(argsJson(c.events()[0], nullptr));
    EXPECT_EQ(ours["bytes"], e["args"]["bytes"]);
  }
}

TEST(CuptiRecords, RuntimeAndDriverCallsGetKinetoNamesAndNoiseIsDropped) {
  json trace = readFixture("multistream_memcpy.json.gz");
  size_t kept = 0, noisy = 0;
  for (const char* cat : {"cuda_runtime", "cuda_driver"}) {
    bool driver = std::string(cat) == "cuda_driver";
    for (const json& e : eventsOf(trace, cat)) {
      RecordConverter c;
      CUpti_ActivityAPI r = apiRecord(e, driver, 4242);
      c.add(reinterpret_cast<const CUpti_Activity*>(&r));
      std::string name = e["name"];
      if (isNoisyRuntimeCall(name)) {
        EXPECT_TRUE(c.events().empty()) << name;
        EXPECT_EQ(c.filteredNoise(), 1u);
        ++noisy;
        continue;
      }
      ASSERT_EQ(c.events().size(), 1u) << name;
      const CuptiEvent& ev = c.events()[0];
      EXPECT_EQ(c.names()[ev.name], name);
      EXPECT_EQ(ev.category, driver ? Category::CudaDriver : Category::CudaRuntime);
      EXPECT_FALSE(ev.on_gpu);
      EXPECT_EQ(ev.thread_id, 4242u);
      json ours = json::parse(argsJson(ev, nullptr));
      EXPECT_EQ(ours["cbid"], e["args"]["cbid"]);
      EXPECT_EQ(ours["correlation"], e["args"]["correlation"]);
      ++kept;
    }
  }
  EXPECT_GT(kept, 0u);
  EXPECT_GT(noisy, 0u);  // the fixture has cudaStreamIsCapturing, which fuselab leaves out
}

TEST(CuptiRecords, DriverCallsOtherThanLaunchesOnlyWhenAskedFor) {
  auto driverCall = [](uint32_t cbid) {
    CUpti_ActivityAPI r;
    std::memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_DRIVER;
    r.cbid = cbid;
    r.start = 10, r.end = 20, r.threadId = 7, r.correlationId = 99;
    return r;
  };
  CUpti_ActivityAPI load = driverCall(CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData);
  CUpti_ActivityAPI launch = driverCall(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx);
  CUpti_ActivityAPI noisy = driverCall(CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent);
  for (bool keep_all : {false, true}) {
    RecordConverter c;
    c.keepAllDriverCalls(keep_all);
    for (const CUpti_ActivityAPI* r : {&load, &launch, &noisy}) c.add(reinterpret_cast<const CUpti_Activity*>(r));
    std::vector<std::string> kept;
    for (const CuptiEvent& e : c.events()) kept.push_back(c.names()[e.name]);
    if (keep_all)
      EXPECT_EQ(kept, (std::vector<std::string>{"cuLibraryLoadData", "cuLaunchKernelEx"}));
    else
      EXPECT_EQ(kept, (std::vector<std::string>{"cuLaunchKernelEx"}));
    EXPECT_EQ(c.filteredNoise(), keep_all ? 1u : 2u);
  }
}

TEST(CuptiRecords, TrackPlacementAndLaunchLinksFromAKinetoStep) {
  json trace = readFixture("mlp_eager.json.gz");
  RecordConverter c;
  const uint32_t thread = 644;
  std::vector<CUpti_ActivityAPI> apis;
  for (const char* cat : {"cuda_runtime", "cuda_driver"})
    for (const json& e : eventsOf(trace, cat)) apis.push_back(apiRecord(e, std::string(cat) == "cuda_driver", thread));
  std::vector<CUpti_ActivityKernel10> kernels;
  for (const json& e : eventsOf(trace, "kernel")) kernels.push_back(kernelRecord(e));
  for (auto& r : apis) c.add(reinterpret_cast<const CUpti_Activity*>(&r));
  for (auto& r : kernels) c.add(reinterpret_cast<const CUpti_Activity*>(&r));
  c.finish(0);

  Trace t;
  std::unordered_map<int, SmFacts> sm{{0, SmFacts{132, 32}}};
  appendEvents(c, sm, 644, t);
  t.finalize();
  ASSERT_EQ(t.tracks.size(), 2u);
  const Track* gpu = nullptr;
  const Track* cpu = nullptr;
  for (const Track& tr : t.tracks) (tr.kind == TrackKind::Gpu ? gpu : cpu) = &tr;
  ASSERT_TRUE(gpu && cpu);
  EXPECT_EQ(t.strings.get(gpu->pid_id), "0");
  EXPECT_EQ(t.strings.get(gpu->tid_id), "7");
  EXPECT_EQ(t.strings.get(gpu->process_name_id), "GPU 0");
  EXPECT_EQ(t.strings.get(gpu->thread_name_id), "stream 7");
  EXPECT_EQ(gpu->size(), kernels.size());
  EXPECT_EQ(t.strings.get(cpu->pid_id), "644");
  EXPECT_EQ(t.strings.get(cpu->tid_id), "644");
  EXPECT_EQ(cpu->size(), apis.size());

  // Every kernel of the fixture links to its launch call, as in Kineto's flows.
  for (const CUpti_ActivityKernel10& k : kernels) {
    const LaunchLink* link = t.launchFor(k.correlationId);
    ASSERT_NE(link, nullptr) << k.correlationId;
    ASSERT_TRUE(link->launch.has_value());
    EXPECT_EQ(link->gpu_ops.size(), 1u);
    std::string_view launch = t.name(*link->launch);
    EXPECT_TRUE(launch == "cudaLaunchKernel" || launch == "cuLaunchKernelEx") << launch;
  }
}

// The cut between warm-up and recorded steps goes by launch: a kernel that a
// warm-up call launched stays out even when it runs after the cut (the
// recorded steps follow the warm-up without a synchronize).
TEST(CuptiRecords, WarmUpCutGoesByTheLaunchNotTheKernelStart) {
  json trace = readFixture("mlp_eager.json.gz");
  std::vector<CUpti_ActivityAPI> apis;
  for (const json& e : eventsOf(trace, "cuda_runtime")) apis.push_back(apiRecord(e, false, 1));
  for (const json& e : eventsOf(trace, "cuda_driver")) apis.push_back(apiRecord(e, true, 1));
  std::vector<CUpti_ActivityKernel10> kernels;
  for (const json& e : eventsOf(trace, "kernel")) kernels.push_back(kernelRecord(e));
  ASSERT_GE(kernels.size(), 4u);
  std::sort(kernels.begin(), kernels.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  auto launchOf = [&](const CUpti_ActivityKernel10& k) {
    return std::find_if(apis.begin(), apis.end(), [&](const auto& a) { return a.correlationId == k.correlationId; });
  };
  // Cut just after the middle kernel's launch began; the kernel starts on the GPU after the cut.
  const auto& middle = kernels[kernels.size() / 2];
  ASSERT_NE(launchOf(middle), apis.end());
  const int64_t cut = int64_t(launchOf(middle)->start) + 1;
  ASSERT_GT(int64_t(middle.start), cut) << "the fixture's kernel should start after its launch began";
  // A kernel with no launch record goes by its own start.
  CUpti_ActivityKernel10 orphan = middle;
  orphan.correlationId = 999999;
  orphan.start = uint64_t(cut - 1000);
  orphan.end = uint64_t(cut + 1000);

  RecordConverter c;
  for (auto& r : apis) c.add(reinterpret_cast<const CUpti_Activity*>(&r));
  for (auto& r : kernels) c.add(reinterpret_cast<const CUpti_Activity*>(&r));
  c.add(reinterpret_cast<const CUpti_Activity*>(&orphan));
  c.finish(0);
  Trace t;
  appendEvents(c, {}, 1, t, cut);
  t.finalize();

  size_t kept = 0, expected = 0;
  for (const auto& k : kernels) expected += launchOf(k) != apis.end() && int64_t(launchOf(k)->start) >= cut;
  for (const Track& tr : t.tracks)
    if (tr.kind == TrackKind::Gpu) kept += tr.size();
  EXPECT_EQ(kept, expected);
  EXPECT_EQ(t.launchFor(middle.correlationId), nullptr) << "a warm-up launch's kernel was kept";
  EXPECT_LT(expected, kernels.size());
}

TEST(CuptiRecords, SyncGoesToItsContextsDeviceAndExternalIdsAttach) {
  RecordConverter c;
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 100, k.end = 200, k.deviceId = 3, k.contextId = 5, k.streamId = 9, k.correlationId = 42;
  CUpti_ActivitySynchronization2 known;
  std::memset(&known, 0, sizeof known);
  known.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  known.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  known.start = 150, known.end = 260, known.contextId = 5;
  known.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  known.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  known.correlationId = 43;
  CUpti_ActivitySynchronization2 unknown = known;
  unknown.contextId = 77;
  unknown.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  unknown.streamId = 13;
  CUpti_ActivityExternalCorrelation ext;
  std::memset(&ext, 0, sizeof ext);
  ext.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  ext.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
  ext.externalId = 1034;
  ext.correlationId = 42;
  CUpti_ActivityKernel10 unfinished = k;
  unfinished.start = 0, unfinished.end = 0;
  CUpti_Activity marker{CUPTI_ACTIVITY_KIND_MARKER};

  for (const void* r : std::initializer_list<const void*>{&ext, &known, &k, &unknown, &unfinished, &marker})
    c.add(static_cast<const CUpti_Activity*>(r));
  c.finish(/*fallback_device=*/2);
  ASSERT_EQ(c.events().size(), 3u);
  EXPECT_EQ(c.incomplete(), 1u);
  EXPECT_EQ(c.otherKinds(), 1u);

  const CuptiEvent& sync_known = c.events()[0];
  EXPECT_EQ(sync_known.category, Category::Sync);
  EXPECT_EQ(c.names()[sync_known.name], "Context Sync");
  EXPECT_EQ(sync_known.device, 3);  // learned from the kernel in context 5
  EXPECT_EQ(sync_known.stream, -1);
  const CuptiEvent& kernel = c.events()[1];
  EXPECT_EQ(kernel.external_id, 1034);
  EXPECT_EQ(json::parse(argsJson(kernel, nullptr))["External id"], 1034);
  const CuptiEvent& sync_unknown = c.events()[2];
  EXPECT_EQ(c.names()[sync_unknown.name], "Stream Sync");
  EXPECT_EQ(sync_unknown.device, 2);
  EXPECT_EQ(sync_unknown.stream, 13);

  Trace t;
  appendEvents(c, {}, 1, t);
  t.finalize();
  for (const Track& tr : t.tracks) {
    EXPECT_EQ(tr.kind, TrackKind::Gpu) << t.strings.get(tr.pid_id) << "/" << t.strings.get(tr.tid_id);
    if (tr.stream == -1) EXPECT_EQ(t.strings.get(tr.thread_name_id), "sync (all streams)");
  }
}

}  // namespace
}  // namespace fuselab::cupti

#endif  // FUSELAB_HAVE_CUPTI
