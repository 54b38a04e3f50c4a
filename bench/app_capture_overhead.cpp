// Capture overhead: per-forward time while capturing divided by the time
// without capturing, measured side by side, for fuselab and for LibTorch's
// Kineto profiler driven from C++ (torch::autograd::profiler).
//
// Two workloads:
//  - gpu: the GeGLU MLP at 64 tokens (dim 768, hidden 3072, bf16) on CUDA,
//    the target (<= 1.25x). Besides the full capture, the overhead is
//    split: the dispatch collector alone (CPU ops, no CUPTI), CUPTI alone
//    (no CPU ops), and CUPTI with one activity kind at a time, so one run
//    says where the time goes. Needs a CUDA GPU; said and skipped otherwise.
//  - cpu: the same MLP shrunk (1 token, dim 64, hidden 256, fp32) on the CPU,
//    where the ops themselves are cheap and the collectors' per-op cost shows;
//    runs everywhere.
// CUPTI takes one subscriber per process, so Kineto is measured in a child
// process (this program run again with --kineto-child), each ratio against
// its own process's eager baseline.
//
// Every variant runs the same loop: kForwards forwards, each inside a
// ProfilerStep#k scope around the workload's region, then one synchronize.
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

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/WorkloadCapture.h"
#include "kernels/Workload.h"
#include "profiling/Capture.h"
#include "profiling/CuptiCollector.h"
#include "profiling/DispatchCollector.h"

namespace {

using fuselab::Workload;

constexpr int kForwards = 50;    // per benchmark iteration
constexpr int kIterations = 20;  // benchmark iterations per variant
constexpr const char* kChildFlag = "--kineto-child";
constexpr const char* kChildResult = "fuselab-kineto-child:";

std::unique_ptr<Workload> makeWarm(fuselab::WorkloadParams p) {
  auto made = fuselab::makeWorkload(p);
  for (int i = 0; i < 10; ++i) made->forward();
  made->synchronize();
  return made;
}

Workload& gpuMlp() {
  static std::unique_ptr<Workload> w = [] {
    fuselab::WorkloadParams p;
    p.workload = "mlp";
    p.batch = 1;
    p.seq = 64;
    p.dim = 768;
    p.hidden = 3072;
    p.dtype = fuselab::DType::BF16;
    p.device = fuselab::Device::Cuda;
    return makeWarm(p);
  }();
  return *w;
}

Workload& cpuMlp() {
  static std::unique_ptr<Workload> w = [] {
    fuselab::WorkloadParams p;
    p.workload = "mlp";
    p.batch = 1;
    p.seq = 1;
    p.dim = 64;
    p.hidden = 256;
    p.dtype = fuselab::DType::FP32;
    p.device = fuselab::Device::Cpu;
    return makeWarm(p);
  }();
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

void BM_Eager(benchmark::State& state) {
  Workload& w = workloadOf(state);
  for (auto _ : state) state.SetIterationTime(timedSteps(w));
}

// state.range(1): record input dims (the capture's default) or not.
// state.range(2): use CUPTI (the full capture) or not (the dispatch collector alone).
void BM_FuselabCapture(benchmark::State& state) {
  Workload& w = workloadOf(state);
  fuselab::CaptureOptions o;
  o.warmup = 1;  // recorded, then left out: it absorbs CUPTI's one-time setup
  o.steps = kForwards;
  o.record_shapes = state.range(1) != 0;
  o.gpu = state.range(2) != 0;
  for (auto _ : state) {
    fuselab::CaptureResult r = fuselab::runCapture(fuselab::captureTarget(w), o);
    if (o.gpu && !r.gpu_captured) {
      state.SkipWithError(("CUPTI unavailable: " + (r.messages.empty() ? std::string() : r.messages[0])).c_str());
      break;
    }
    state.SetIterationTime(double(r.steps_wall_ns) * 1e-9);
  }
}

// CUPTI alone, as the capture configures it, without the dispatch collector.
void BM_CuptiCollectorOnly(benchmark::State& state) {
  Workload& w = workloadOf(state);
  for (auto _ : state) {
    fuselab::CuptiCollector cupti;
    std::string why;
    if (!cupti.start(fuselab::CuptiOptions{}, &why)) {
      state.SkipWithError(("CUPTI unavailable: " + why).c_str());
      break;
    }
    untimedForward(w);
    state.SetIterationTime(timedSteps(w));
    cupti.stop();
  }
}

#ifdef FUSELAB_HAVE_CUPTI
// One CUPTI activity kind on its own (raw CUPTI, records thrown away): which
// kind costs what. state.range(1): the CUpti_ActivityKind.
void CUPTIAPI probeBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  constexpr size_t kBytes = 8u << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBytes));
  *size = *buffer ? kBytes : 0;
  *max_records = 0;
}

void CUPTIAPI probeBufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t) { std::free(buffer); }

void BM_CuptiKindOnly(benchmark::State& state) {
  Workload& w = workloadOf(state);
  const auto kind = static_cast<CUpti_ActivityKind>(state.range(1));
  if (cuptiActivityRegisterCallbacks(probeBufferRequested, probeBufferCompleted) != CUPTI_SUCCESS) {
    state.SkipWithError("cuptiActivityRegisterCallbacks failed");
    return;
  }
  for (auto _ : state) {
    if (cuptiActivityEnable(kind) != CUPTI_SUCCESS) {
      state.SkipWithError("cuptiActivityEnable failed");
      break;
    }
    untimedForward(w);
    state.SetIterationTime(timedSteps(w));
    cuptiActivityDisable(kind);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
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
  for (auto _ : state) {
    prof::prepareProfiler(config, activities);
    prof::enableProfiler(config, activities);
    untimedForward(w);  // like runCapture's recorded warm-up: CUPTI's one-time setup
    double seconds = timedSteps(w);
    auto result = prof::disableProfiler();
    state.SetIterationTime(seconds);
    benchmark::DoNotOptimize(result);
  }
}

// Google Benchmark 1.7 flags a failed run with `error_occurred`, 1.8 with `skipped`.
template <class R>
auto runFailed(const R& r) -> decltype(bool(r.error_occurred)) { return r.error_occurred; }
template <class R>
auto runFailed(const R& r) -> decltype(bool(r.skipped)) { return bool(r.skipped); }

// Keeps the seconds per forward of every benchmark, by its name (without the args).
class Recorder : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> seconds_per_forward;
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs)
      if (r.run_type == Run::RT_Iteration && !runFailed(r) && r.iterations > 0)
        seconds_per_forward[r.run_name.function_name] = r.real_accumulated_time / double(r.iterations) / kForwards;
  }
};

// Benchmark names, as the reporter spells them.
std::string eagerName(bool gpu) { return std::string(gpu ? "gpu" : "cpu") + "/eager"; }
std::string variantName(bool gpu, const std::string& variant) { return std::string(gpu ? "gpu/" : "cpu/") + variant; }

void add(const std::string& name, void (*fn)(benchmark::State&), std::vector<int64_t> args) {
  benchmark::RegisterBenchmark(name.c_str(), fn)
      ->Args(args)
      ->UseManualTime()
      ->Iterations(kIterations)
      ->Unit(benchmark::kMicrosecond);
}

#ifdef FUSELAB_HAVE_CUPTI
const std::vector<std::pair<const char*, CUpti_ActivityKind>> kProbedKinds = {
    {"concurrent_kernel", CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL},
    {"runtime", CUPTI_ACTIVITY_KIND_RUNTIME},
    {"driver", CUPTI_ACTIVITY_KIND_DRIVER},
    {"synchronization", CUPTI_ACTIVITY_KIND_SYNCHRONIZATION},
    {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY},
};
#endif

void registerBenchmarks(bool kineto_child, bool gpu) {
  for (bool on_gpu : {false, true}) {
    if (on_gpu && !gpu) continue;
    const int64_t g = on_gpu ? 1 : 0;
    add(eagerName(on_gpu), BM_Eager, {g});
    if (kineto_child) {
      add(variantName(on_gpu, "kineto_dims"), BM_Kineto, {g, 1});
      add(variantName(on_gpu, "kineto_no_dims"), BM_Kineto, {g, 0});
      continue;
    }
    add(variantName(on_gpu, "fuselab_dims"), BM_FuselabCapture, {g, 1, g});
    add(variantName(on_gpu, "fuselab_no_dims"), BM_FuselabCapture, {g, 0, g});
    if (!on_gpu) continue;
    add(variantName(true, "dispatch_collector_only"), BM_FuselabCapture, {g, 1, 0});
    add(variantName(true, "cupti_collector_only"), BM_CuptiCollectorOnly, {g});
#ifdef FUSELAB_HAVE_CUPTI
    for (const auto& [label, kind] : kProbedKinds)
      add(variantName(true, std::string("cupti_kind_only/") + label), BM_CuptiKindOnly, {g, int64_t(kind)});
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
bool runKinetoChild(std::map<std::string, double>& into) {
  std::string cmd = "'" + selfPath() + "' " + kChildFlag + " --benchmark_color=false 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return false;
  char line[4096];
  while (fgets(line, sizeof line, pipe)) {
    std::fputs("  [kineto child] ", stdout);
    std::fputs(line, stdout);
    char name[512];
    double seconds = 0;
    // Found anywhere in the line: the console reporter may leave a colour code before it.
    if (const char* at = std::strstr(line, kChildResult))
      if (std::sscanf(at + std::strlen(kChildResult), "%511s %lf", name, &seconds) == 2)
        into[std::string("kineto:") + name] = seconds;
  }
  return pclose(pipe) == 0;
}

void printSection(std::map<std::string, double>& t, bool gpu) {
  const std::string eager = eagerName(gpu);
  const std::string kineto_eager = "kineto:" + eager;
  if (gpu)
    std::printf("\ncapture overhead, mlp at 64 tokens (dim 768, hidden 3072, bf16, cuda), per forward:\n");
  else
    std::printf("\ncapture overhead, mlp at 1 token (dim 64, hidden 256, fp32, cpu), per forward:\n");
  auto line = [&](const char* what, const std::string& name, const std::string& base, const char* note) {
    if (!t.count(name) || !t.count(base)) {
      std::printf("  %-38s not measured (see the output above)\n", what);
      return;
    }
    double during = t[name], without = t[base];
    std::printf("  %-38s %8.2f us vs %8.2f us eager: %.2fx, +%.2f us%s\n", what, during * 1e6, without * 1e6,
                during / without, (during - without) * 1e6, note);
  };
  line("fuselab capture (input dims)", variantName(gpu, "fuselab_dims"), eager,
       gpu ? "  (the default; target <= 1.25x)" : "  (the default)");
  line("fuselab capture (no input dims)", variantName(gpu, "fuselab_no_dims"), eager, "  (--no-shapes)");
  line("Kineto from C++ (input dims)", "kineto:" + variantName(gpu, "kineto_dims"), kineto_eager, "  (child process)");
  line("Kineto from C++ (no input dims)", "kineto:" + variantName(gpu, "kineto_no_dims"), kineto_eager,
       "  (child process)");
  if (!gpu) return;
  std::printf("  where fuselab's overhead goes:\n");
  line("  dispatch collector alone (dims)", variantName(true, "dispatch_collector_only"), eager, "");
  line("  CUPTI collector alone", variantName(true, "cupti_collector_only"), eager, "");
#ifdef FUSELAB_HAVE_CUPTI
  for (const auto& [label, kind] : kProbedKinds) {
    std::string what = std::string("  CUPTI kind ") + label + " alone";
    line(what.c_str(), variantName(true, std::string("cupti_kind_only/") + label), eager, "");
  }
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
  auto& t = recorder.seconds_per_forward;

  if (child) {
    for (const auto& [name, seconds] : t) std::printf("%s %s %.9g\n", kChildResult, name.c_str(), seconds);
    return 0;
  }
  if (!runKinetoChild(t)) std::printf("Kineto child process failed (its output is above)\n");
  printSection(t, false);
  if (gpu) printSection(t, true);
  return 0;
}
