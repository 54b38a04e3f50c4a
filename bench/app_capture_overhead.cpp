// Capture overhead: per-forward time while capturing divided by the time
// without capturing, measured side by side, for fuselab and for LibTorch's
// Kineto profiler driven from C++ (torch::autograd::profiler).
//
// Two workloads:
//  - gpu: the GeGLU MLP at 64 tokens (dim 768, hidden 3072, bf16) on CUDA,
//    the target (<= 1.25x), with CUDA calls recorded both ways
//    (CuptiApiSource: callbacks, the default, and activity kinds). Besides the full capture,
//    the overhead is split: the dispatch collector alone (CPU ops, no CUPTI),
//    CUPTI alone (no CPU ops), and raw CUPTI one piece of the collector's configuration
//    at a time (an activity kind, with or without single calls switched off,
//    or single calls switched on without their kind), with the records each
//    produced, so one run says where the time goes. Needs a CUDA GPU; said
//    and skipped otherwise.
//  - cpu: the same MLP shrunk (1 token, dim 64, hidden 256, fp32) on the CPU,
//    where the ops themselves are cheap and the collectors' per-op cost shows;
//    runs everywhere.
// Both workloads also time a RecordFunction callback that records nothing:
// LibTorch's share of the CPU-side cost, which no collector can go below.
// CUPTI takes one subscriber per process, so Kineto is measured in a child
// process (this program run again with --kineto-child).
//
// Every variant runs the same loop: kForwards forwards, each inside a
// ProfilerStep#k scope around the workload's region, then one synchronize;
// each iteration also times that loop without profiling (see Pairs), and the
// ratios are medians over these pairs.
// Profilers are measured with and without input dims (recording them makes
// LibTorch box every op's arguments). Each profiler gets one untimed forward
// after it starts, as torch.profiler's schedule has a warm-up step: the first
// launches after enabling CUPTI pay for its one-time setup.
#include <benchmark/benchmark.h>

#include <ATen/Context.h>
#include <ATen/record_function.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#ifdef FUSELAB_HAVE_CUPTI
#include <cupti.h>
#endif

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/capture/WorkloadCapture.h"
#include "kernels/WorkloadRegistry.h"
#include "profiling/capture/Capture.h"
#ifdef FUSELAB_HAVE_CUPTI
#include "profiling/capture/CuptiApiNames.h"
#endif
#include "profiling/capture/CuptiCollector.h"
#include "profiling/capture/DispatchCollector.h"

namespace {

using fuselab::Workload;

constexpr int kForwards = 50;    // per benchmark iteration
constexpr int kIterations = 40;  // benchmark iterations per variant (pairs)
constexpr const char* kChildFlag = "--kineto-child";
constexpr const char* kChildResult = "fuselab-kineto-child:";

// The GeGLU MLP over `tokens` tokens, built and run 10 times before timing.
std::unique_ptr<Workload> warmMlp(int64_t tokens, int64_t dim, int64_t hidden, fuselab::DType dtype,
                                  fuselab::Device device) {
  fuselab::WorkloadParams p;
  p.workload = "mlp";
  p.batch = 1;
  p.seq = tokens;
  p.dim = dim;
  p.hidden = hidden;
  p.dtype = dtype;
  p.device = device;
  auto made = fuselab::makeWorkload(p);
  for (int i = 0; i < 10; ++i) made->forward();
  made->synchronize();
  return made;
}

Workload& gpuMlp() {
  static std::unique_ptr<Workload> w = warmMlp(64, 768, 3072, fuselab::DType::BF16, fuselab::Device::Cuda);
  return *w;
}

Workload& cpuMlp() {
  static std::unique_ptr<Workload> w = warmMlp(1, 64, 256, fuselab::DType::FP32, fuselab::Device::Cpu);
  return *w;
}

// state.range(0) of every benchmark: 0 = cpu workload, 1 = gpu workload.
Workload& workloadOf(const benchmark::State& state) { return state.range(0) != 0 ? gpuMlp() : cpuMlp(); }

class UserScope {
 public:
  explicit UserScope(const std::string& name) : guard_(at::RecordScope::USER_SCOPE) {
    if (guard_.isActive()) guard_.before(std::string_view(name));
  }

 private:
  at::RecordFunction guard_;
};

// The loop every variant times: the same scopes runCapture opens.
double timedSteps(Workload& w) {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (int i = 0; i < kForwards; ++i) n.push_back(fuselab::profilerStepName(i));
    return n;
  }();
  const std::string region = w.regionLabel();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kForwards; ++i) {
    UserScope step(names[i]);
    UserScope r(region);
    w.forward();
  }
  w.synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void untimedForward(Workload& w) {
  w.forward();
  w.synchronize();
}

// Every iteration also times the eager loop, before the profiled one on even
// iterations and after it on odd ones, so each ratio compares two
// measurements taken moments apart, in both orders: the eager time of this
// CPU-bound forward moves (56 to 123 us on the H100) by more than the effects
// measured here. Reported as medians over the iterations, so that a hiccup in
// one iteration does not move the figure: counters "eager_us" and
// "profiled_us" (per forward) and "ratio" (the median of the per-iteration
// ratios). The eager loop runs in a process that has already captured, and
// once CUPTI has been on, forwards stay slower after it is off (the MLP at 64
// tokens on the H100: about 70 us against 55 us before any capture), so the
// ratio is the cost of capturing over that baseline; a capture's own
// observer effect compares with the block before its first profiler start.
class Pairs {
 public:
  Pairs(benchmark::State& state, Workload& w) : state_(state), w_(w) {}
  ~Pairs() {
    if (profiled_.empty() || profiled_.size() != eager_.size()) return;
    std::vector<double> ratios;
    for (size_t i = 0; i < profiled_.size(); ++i) ratios.push_back(profiled_[i] / eager_[i]);
    state_.counters["eager_us"] = median(eager_) / kForwards * 1e6;
    state_.counters["profiled_us"] = median(profiled_) / kForwards * 1e6;
    state_.counters["ratio"] = median(ratios);
  }
  // Call at the start of each iteration, then profiled() with its time.
  void begin() {
    if (profiled_.size() % 2 == 0) eager_.push_back(timedSteps(w_));
  }
  void profiled(double seconds) {
    state_.SetIterationTime(seconds);
    profiled_.push_back(seconds);
    if (eager_.size() < profiled_.size()) eager_.push_back(timedSteps(w_));
  }

 private:
  static double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  }
  benchmark::State& state_;
  Workload& w_;
  std::vector<double> eager_, profiled_;
};

// state.range(1): record input dims (the capture's default) or not.
// state.range(2): use CUPTI (the full capture) or not (the dispatch collector alone).
// state.range(3): the CuptiApiSource of the CUDA calls.
// state.range(4): record memory (the capture's default) or not.
void BM_FuselabCapture(benchmark::State& state) {
  Workload& w = workloadOf(state);
  fuselab::CaptureOptions o;
  o.warmup = 1;  // recorded, then left out: it absorbs CUPTI's one-time setup
  o.steps = kForwards;
  o.record_shapes = state.range(1) != 0;
  o.gpu = state.range(2) != 0;
  o.cupti_api_source = static_cast<fuselab::CuptiApiSource>(state.range(3));
  o.memory = state.range(4) != 0;
  Pairs pairs(state, w);
  for (auto _ : state) {
    pairs.begin();
    fuselab::CaptureResult r = fuselab::runCapture(fuselab::captureTarget(w), o);
    if (o.gpu && !r.gpu_captured) {
      state.SkipWithError(("CUPTI unavailable: " + (r.messages.empty() ? std::string() : r.messages[0])).c_str());
      break;
    }
    pairs.profiled(double(r.steps_wall_ns) * 1e-9);
  }
}

// LibTorch's own share: a global RecordFunction callback that records
// nothing, installed as the dispatch collector installs its own.
// state.range(1): ask for the inputs (what recording input dims needs) or not.
std::unique_ptr<at::ObserverContext> ignoreStart(const at::RecordFunction&) { return nullptr; }
void ignoreEnd(const at::RecordFunction&, at::ObserverContext*) {}

void BM_NoopCallback(benchmark::State& state) {
  Workload& w = workloadOf(state);
  Pairs pairs(state, w);
  for (auto _ : state) {
    pairs.begin();
    at::CallbackHandle handle = at::addGlobalCallback(at::RecordFunctionCallback(&ignoreStart, &ignoreEnd)
                                                          .needsInputs(state.range(1) != 0)
                                                          .scopes({at::RecordScope::FUNCTION, at::RecordScope::USER_SCOPE}));
    untimedForward(w);
    const double seconds = timedSteps(w);
    at::removeCallback(handle);
    pairs.profiled(seconds);
  }
}

// CUPTI alone, as the capture configures it, without the dispatch collector.
// state.range(1): the CuptiApiSource of the CUDA calls.
void BM_CuptiCollectorOnly(benchmark::State& state) {
  Workload& w = workloadOf(state);
  fuselab::CuptiOptions options;
  options.api_source = static_cast<fuselab::CuptiApiSource>(state.range(1));
  Pairs pairs(state, w);
  for (auto _ : state) {
    pairs.begin();
    fuselab::CuptiCollector cupti;
    std::string why;
    if (!cupti.start(options, &why)) {
      state.SkipWithError(("CUPTI unavailable: " + why).c_str());
      break;
    }
    untimedForward(w);
    const double seconds = timedSteps(w);
    cupti.stop();
    pairs.profiled(seconds);
  }
}

#ifdef FUSELAB_HAVE_CUPTI
// CUPTI configurations on their own (raw CUPTI, records counted and thrown
// away): which part of the collector's configuration costs what, and whether
// switching single calls on without their kind records them.
std::atomic<uint64_t> g_probe_records{0};

void CUPTIAPI probeBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  constexpr size_t kBytes = 8u << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBytes));
  *size = *buffer ? kBytes : 0;
  *max_records = 0;
}

void CUPTIAPI probeBufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  uint64_t n = 0;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) ++n;
  g_probe_records += n;
  std::free(buffer);
}

enum class Probe : int64_t {
  ConcurrentKernel,
  Runtime,            // every runtime call, cudaGetDevice included
  RuntimeFiltered,    // the kind, then the noisy calls switched off (the collector's way)
  RuntimeSelected,    // no kind: the quiet runtime calls switched on one by one
  Driver,             // every driver call
  DriverFiltered,     // the kind, then all but the launches switched off (the collector's way)
  DriverLaunchesSelected,  // no kind: the driver launches switched on one by one
  Synchronization,
  Memcpy,
};

struct ProbeSetup {
  std::vector<CUpti_ActivityKind> kinds;
  fuselab::cupti::ApiDomain domain = fuselab::cupti::ApiDomain::Runtime;
  std::vector<uint32_t> calls;  // switched to `calls_on` after the kinds
  uint8_t calls_on = 0;
};

ProbeSetup probeSetup(Probe p) {
  using fuselab::cupti::ApiDomain;
  const auto& table = fuselab::cupti::ApiTable::instance();
  switch (p) {
    case Probe::ConcurrentKernel: return {{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL}};
    case Probe::Runtime: return {{CUPTI_ACTIVITY_KIND_RUNTIME}};
    case Probe::RuntimeFiltered:
      return {{CUPTI_ACTIVITY_KIND_RUNTIME}, ApiDomain::Runtime, table.noisyIds(ApiDomain::Runtime), 0};
    case Probe::RuntimeSelected: return {{}, ApiDomain::Runtime, table.quietIds(ApiDomain::Runtime), 1};
    case Probe::Driver: return {{CUPTI_ACTIVITY_KIND_DRIVER}};
    case Probe::DriverFiltered:
      return {{CUPTI_ACTIVITY_KIND_DRIVER}, ApiDomain::Driver, table.driverIdsExceptLaunches(), 0};
    case Probe::DriverLaunchesSelected: return {{}, ApiDomain::Driver, table.driverLaunchIds(), 1};
    case Probe::Synchronization: return {{CUPTI_ACTIVITY_KIND_SYNCHRONIZATION}};
    case Probe::Memcpy: return {{CUPTI_ACTIVITY_KIND_MEMCPY}};
  }
  return {};
}

bool switchCalls(const ProbeSetup& setup, uint8_t on) {
  bool ok = true;
  for (uint32_t cbid : setup.calls)
    ok &= (setup.domain == fuselab::cupti::ApiDomain::Runtime ? cuptiActivityEnableRuntimeApi(cbid, on)
                                                              : cuptiActivityEnableDriverApi(cbid, on)) == CUPTI_SUCCESS;
  return ok;
}

// state.range(1): the Probe. Counter "records": CUPTI records per timed forward.
void BM_CuptiProbe(benchmark::State& state) {
  Workload& w = workloadOf(state);
  const ProbeSetup setup = probeSetup(static_cast<Probe>(state.range(1)));
  if (cuptiActivityRegisterCallbacks(probeBufferRequested, probeBufferCompleted) != CUPTI_SUCCESS) {
    state.SkipWithError("cuptiActivityRegisterCallbacks failed");
    return;
  }
  uint64_t records = 0;
  Pairs pairs(state, w);
  for (auto _ : state) {
    pairs.begin();
    bool ok = true;
    for (CUpti_ActivityKind kind : setup.kinds) ok &= cuptiActivityEnable(kind) == CUPTI_SUCCESS;
    ok &= switchCalls(setup, setup.calls_on);
    if (!ok) {
      state.SkipWithError("CUPTI refused this configuration");
      break;
    }
    untimedForward(w);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    const uint64_t before = g_probe_records.load();
    const double seconds = timedSteps(w);
    for (CUpti_ActivityKind kind : setup.kinds) cuptiActivityDisable(kind);
    // Calls switched on one by one stay on without a kind: switch them off again.
    if (setup.calls_on) switchCalls(setup, 0);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    records += g_probe_records.load() - before;
    pairs.profiled(seconds);
  }
  state.counters["records"] = benchmark::Counter(double(records) / (double(state.iterations()) * kForwards));
}
#endif

void BM_Kineto(benchmark::State& state) {
  namespace prof = torch::autograd::profiler;
  using torch::profiler::impl::ActivityType;
  using torch::profiler::impl::ProfilerConfig;
  using torch::profiler::impl::ProfilerState;
  Workload& w = workloadOf(state);
  const ProfilerConfig config(ProfilerState::KINETO, /*report_input_shapes=*/state.range(1) != 0);
  std::set<ActivityType> activities{ActivityType::CPU};
  if (state.range(0) != 0) activities.insert(ActivityType::CUDA);
  Pairs pairs(state, w);
  for (auto _ : state) {
    pairs.begin();
    prof::prepareProfiler(config, activities);
    prof::enableProfiler(config, activities);
    untimedForward(w);  // like runCapture's recorded warm-up: CUPTI's one-time setup
    double seconds = timedSteps(w);
    auto result = prof::disableProfiler();
    benchmark::DoNotOptimize(result);
    result.reset();  // its events are freed outside the timed eager loop of the next iteration
    pairs.profiled(seconds);
  }
}

// Google Benchmark 1.7 flags a failed run with `error_occurred`, 1.8 with `skipped`.
template <class R>
auto runFailed(const R& r) -> decltype(bool(r.error_occurred)) { return r.error_occurred; }
template <class R>
auto runFailed(const R& r) -> decltype(bool(r.skipped)) { return bool(r.skipped); }

// Seconds per forward while profiling and of the paired eager loop.
struct PerForward {
  double profiled = 0;  // median seconds per forward while profiling
  double eager = 0;     // median of the paired eager loops
  double ratio = 0;     // median of the per-iteration ratios
};

// Keeps every benchmark's figures, by its name (without the args).
class Recorder : public benchmark::ConsoleReporter {
 public:
  // Colours only on a terminal: the output is also parsed and kept in files.
  Recorder() : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_Defaults : OO_Tabular) {}
  std::map<std::string, PerForward> results;
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs) {
      auto eager = r.counters.find("eager_us"), profiled = r.counters.find("profiled_us"),
           ratio = r.counters.find("ratio");
      if (r.run_type == Run::RT_Iteration && !runFailed(r) && r.iterations > 0 && eager != r.counters.end() &&
          profiled != r.counters.end() && ratio != r.counters.end())
        results[r.run_name.function_name] = {profiled->second.value * 1e-6, eager->second.value * 1e-6,
                                             ratio->second.value};
    }
  }
};

std::string variantName(bool gpu, const std::string& variant) { return std::string(gpu ? "gpu/" : "cpu/") + variant; }

void add(const std::string& name, void (*fn)(benchmark::State&), std::vector<int64_t> args) {
  benchmark::RegisterBenchmark(name.c_str(), fn)
      ->Args(args)
      ->UseManualTime()
      ->Iterations(kIterations)
      ->Unit(benchmark::kMicrosecond);
}

#ifdef FUSELAB_HAVE_CUPTI
const std::vector<std::pair<const char*, Probe>> kProbes = {
    {"concurrent_kernel", Probe::ConcurrentKernel},
    {"runtime", Probe::Runtime},
    {"runtime_filtered", Probe::RuntimeFiltered},
    {"runtime_selected", Probe::RuntimeSelected},
    {"driver", Probe::Driver},
    {"driver_filtered", Probe::DriverFiltered},
    {"driver_launches_selected", Probe::DriverLaunchesSelected},
    {"synchronization", Probe::Synchronization},
    {"memcpy", Probe::Memcpy},
};
#endif

void registerBenchmarks(bool kineto_child, bool gpu) {
  for (bool on_gpu : {false, true}) {
    if (on_gpu && !gpu) continue;
    const int64_t g = on_gpu ? 1 : 0;
    if (kineto_child) {
      add(variantName(on_gpu, "kineto_dims"), BM_Kineto, {g, 1});
      add(variantName(on_gpu, "kineto_no_dims"), BM_Kineto, {g, 0});
      continue;
    }
    const int64_t by_default = int64_t(fuselab::CaptureOptions{}.cupti_api_source);
    const int64_t activity = int64_t(fuselab::CuptiApiSource::ActivityKinds);
    add(variantName(on_gpu, "fuselab_dims"), BM_FuselabCapture, {g, 1, g, by_default, 1});
    add(variantName(on_gpu, "fuselab_no_dims"), BM_FuselabCapture, {g, 0, g, by_default, 1});
    // What recording memory costs: fuselab_dims against this, side by side.
    add(variantName(on_gpu, "fuselab_dims_no_memory"), BM_FuselabCapture, {g, 1, g, by_default, 0});
    add(variantName(on_gpu, "noop_callback_dims"), BM_NoopCallback, {g, 1});
    add(variantName(on_gpu, "noop_callback_no_dims"), BM_NoopCallback, {g, 0});
    if (!on_gpu) continue;
    add(variantName(true, "fuselab_dims_activity_kinds"), BM_FuselabCapture, {g, 1, g, activity, 1});
    add(variantName(true, "dispatch_collector_only"), BM_FuselabCapture, {g, 1, 0, by_default, 1});
    add(variantName(true, "cupti_collector_only"), BM_CuptiCollectorOnly, {g, by_default});
    add(variantName(true, "cupti_collector_only_activity_kinds"), BM_CuptiCollectorOnly, {g, activity});
#ifdef FUSELAB_HAVE_CUPTI
    for (const auto& [label, probe] : kProbes)
      add(variantName(true, std::string("cupti_probe/") + label), BM_CuptiProbe, {g, int64_t(probe)});
#endif
  }
}

std::string selfPath() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

// Runs the Kineto half in a fresh process and adds its results, named
// "kineto:<benchmark>", to `into`. false when the child failed.
bool runKinetoChild(std::map<std::string, PerForward>& into) {
  std::string cmd = "'" + selfPath() + "' " + kChildFlag + " --benchmark_color=false 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return false;
  char line[4096];
  while (fgets(line, sizeof line, pipe)) {
    std::fputs("  [kineto child] ", stdout);
    std::fputs(line, stdout);
    char name[512];
    PerForward r;
    // Found anywhere in the line: the console reporter may leave a colour code before it.
    if (const char* at = std::strstr(line, kChildResult))
      if (std::sscanf(at + std::strlen(kChildResult), "%511s %lf %lf %lf", name, &r.profiled, &r.eager, &r.ratio) == 4)
        into[std::string("kineto:") + name] = r;
  }
  return pclose(pipe) == 0;
}

void printSection(const std::map<std::string, PerForward>& t, bool gpu) {
  if (gpu)
    std::printf("\ncapture overhead, mlp at 64 tokens (dim 768, hidden 3072, bf16, cuda), per forward:\n");
  else
    std::printf("\ncapture overhead, mlp at 1 token (dim 64, hidden 256, fp32, cpu), per forward:\n");
  auto line = [&](const char* what, const std::string& name, const char* note) {
    auto found = t.find(name);
    if (found == t.end()) {
      std::printf("  %-38s not measured (see the output above)\n", what);
      return;
    }
    const PerForward& r = found->second;
    std::printf("  %-38s %8.2f us vs %8.2f us eager: %.2fx, +%.2f us%s\n", what, r.profiled * 1e6, r.eager * 1e6,
                r.ratio, (r.profiled - r.eager) * 1e6, note);
  };
  line("fuselab capture (input dims)", variantName(gpu, "fuselab_dims"),
       gpu ? "  (the default; target <= 1.25x)" : "  (the default)");
  line("fuselab capture (no input dims)", variantName(gpu, "fuselab_no_dims"), "  (--no-shapes)");
  if (gpu)
    line("fuselab, CUDA calls by activity kinds", variantName(gpu, "fuselab_dims_activity_kinds"),
         "  (input dims; CuptiApiSource::ActivityKinds)");
  line("LibTorch's share (inputs)", variantName(gpu, "noop_callback_dims"),
       "  (a callback that records nothing, asking for inputs)");
  line("LibTorch's share (no inputs)", variantName(gpu, "noop_callback_no_dims"), "  (a callback that records nothing)");
  line("Kineto from C++ (input dims)", "kineto:" + variantName(gpu, "kineto_dims"), "  (child process)");
  line("Kineto from C++ (no input dims)", "kineto:" + variantName(gpu, "kineto_no_dims"), "  (child process)");
  if (!gpu) return;
  std::printf("  where fuselab's overhead goes:\n");
  line("  dispatch collector alone (dims)", variantName(true, "dispatch_collector_only"), "");
  line("  CUPTI collector alone", variantName(true, "cupti_collector_only"), "");
  line("  CUPTI collector alone, activity kinds", variantName(true, "cupti_collector_only_activity_kinds"), "");
#ifdef FUSELAB_HAVE_CUPTI
  for (const auto& [label, probe] : kProbes) {
    std::string what = std::string("  CUPTI ") + label + " alone";
    line(what.c_str(), variantName(true, std::string("cupti_probe/") + label), "");
  }
  std::printf("  (CUPTI records per forward of each probe: the \"records\" column above)\n");
#endif
}

}  // namespace

int main(int argc, char** argv) {
  bool child = false;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], kChildFlag) == 0) {
      child = true;
      for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
      --argc;
      break;
    }
  const bool gpu = at::hasCUDA();
  if (!gpu && !child)
    std::printf("app_capture_overhead: no CUDA GPU: the gpu workload is skipped, the cpu one runs "
                "(run it on the GPU machine for the issue's target)\n");
  benchmark::Initialize(&argc, argv);
  registerBenchmarks(child, gpu);
  Recorder recorder;
  benchmark::RunSpecifiedBenchmarks(&recorder);
  benchmark::Shutdown();
  auto& t = recorder.results;

  if (child) {
    for (const auto& [name, r] : t)
      std::printf("%s %s %.9g %.9g %.9g\n", kChildResult, name.c_str(), r.profiled, r.eager, r.ratio);
    return 0;
  }
  if (!runKinetoChild(t)) std::printf("Kineto child process failed (its output is above)\n");
  printSection(t, false);
  if (gpu) printSection(t, true);
  return 0;
}
