// Capture overhead (GPU): per-forward time of the GeGLU MLP at 64 tokens
// (dim 768, hidden 3072, bf16) while fuselab captures, divided by the time
// without capturing; and the same ratio for LibTorch's Kineto profiler driven
// from C++ (torch::autograd::profiler). CUPTI takes one subscriber per
// process, so Kineto is measured in a child process (this program run again
// with --kineto-child), each ratio against its own process's eager baseline.
//
// Every variant runs the same loop: kForwards forwards, each inside a
// ProfilerStep#k scope around the "mlp_fwd" region, then one synchronize.
// Both profilers are measured with and without input dims (recording them
// makes LibTorch box every op's arguments). Each profiler gets one untimed
// forward after it starts, as torch.profiler's schedule has a warm-up step:
// the first launches after enabling CUPTI pay for its one-time setup.
// Exits 0 with a message where there is no CUDA GPU.
#include <benchmark/benchmark.h>

#include <ATen/Context.h>
#include <ATen/record_function.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "app/WorkloadCapture.h"
#include "kernels/Workload.h"
#include "profiling/Capture.h"

namespace {

using fuselab::Workload;

constexpr int kForwards = 50;       // per benchmark iteration
constexpr int kIterations = 20;     // benchmark iterations per variant
constexpr const char* kChildFlag = "--kineto-child";
constexpr const char* kChildResult = "fuselab-kineto-child:";

Workload& mlp64() {
  static std::unique_ptr<Workload> w = [] {
    fuselab::WorkloadParams p;
    p.workload = "mlp";
    p.batch = 1;
    p.seq = 64;
    p.dim = 768;
    p.hidden = 3072;
    p.dtype = fuselab::DType::BF16;
    p.device = fuselab::Device::Cuda;
    auto made = fuselab::makeWorkload(p);
    for (int i = 0; i < 10; ++i) made->forward();
    made->synchronize();
    return made;
  }();
  return *w;
}

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

void BM_Eager(benchmark::State& state) {
  Workload& w = mlp64();
  for (auto _ : state) state.SetIterationTime(timedSteps(w));
}

// state.range(0): record input dims (the capture's default) or not.
void BM_FuselabCapture(benchmark::State& state) {
  Workload& w = mlp64();
  fuselab::CaptureOptions o;
  o.warmup = 1;  // recorded, then left out: it absorbs CUPTI's one-time setup
  o.steps = kForwards;
  o.record_shapes = state.range(0) != 0;
  o.gpu = true;
  for (auto _ : state) {
    fuselab::CaptureResult r = fuselab::runCapture(fuselab::captureTarget(w), o);
    if (!r.gpu_captured) {
      state.SkipWithError(("CUPTI unavailable: " + (r.messages.empty() ? std::string() : r.messages[0])).c_str());
      break;
    }
    state.SetIterationTime(double(r.steps_wall_ns) * 1e-9);
  }
}

void BM_Kineto(benchmark::State& state) {
  namespace prof = torch::autograd::profiler;
  using torch::profiler::impl::ActivityType;
  using torch::profiler::impl::ProfilerConfig;
  using torch::profiler::impl::ProfilerState;
  Workload& w = mlp64();
  const ProfilerConfig config(ProfilerState::KINETO, /*report_input_shapes=*/state.range(0) != 0);
  const std::set<ActivityType> activities{ActivityType::CPU, ActivityType::CUDA};
  for (auto _ : state) {
    prof::prepareProfiler(config, activities);
    prof::enableProfiler(config, activities);
    w.forward();  // untimed, like runCapture's recorded warm-up: CUPTI's one-time setup
    w.synchronize();
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

// Keeps the per-iteration manual time of every benchmark, by name.
class Recorder : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> seconds_per_forward;
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs)
      if (r.run_type == Run::RT_Iteration && !runFailed(r) && r.iterations > 0)
        seconds_per_forward[r.run_name.function_name + "/" + r.run_name.args] =
            r.real_accumulated_time / double(r.iterations) / kForwards;
  }
};

void registerBenchmarks(bool kineto) {
  auto add = [](const char* name, void (*fn)(benchmark::State&), int shapes) {
    benchmark::RegisterBenchmark(name, fn)
        ->Arg(shapes)
        ->UseManualTime()
        ->Iterations(kIterations)
        ->Unit(benchmark::kMicrosecond);
  };
  add("mlp64/eager", BM_Eager, 0);
  const char* name = kineto ? "mlp64/kineto_capture" : "mlp64/fuselab_capture";
  auto* fn = kineto ? BM_Kineto : BM_FuselabCapture;
  add(name, fn, 1);  // with input dims
  add(name, fn, 0);  // without
}

std::string selfPath() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

// Runs the Kineto half in a fresh process: seconds per forward eager, under
// Kineto with input dims, and without.
bool runKinetoChild(double& eager, double& shapes, double& plain) {
  std::string cmd = "'" + selfPath() + "' " + kChildFlag + " --benchmark_color=false 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return false;
  char line[4096];
  bool found = false;
  while (fgets(line, sizeof line, pipe)) {
    std::fputs("  [kineto child] ", stdout);
    std::fputs(line, stdout);
    // Found anywhere in the line: the console reporter may leave a colour code before it.
    if (const char* at = std::strstr(line, kChildResult))
      found = std::sscanf(at + std::strlen(kChildResult), "%lf %lf %lf", &eager, &shapes, &plain) == 3;
  }
  return pclose(pipe) == 0 && found;
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
  if (!at::hasCUDA()) {
    std::printf("app_capture_overhead: no CUDA GPU: skipped (run it on the GPU machine)\n");
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  registerBenchmarks(child);
  Recorder recorder;
  benchmark::RunSpecifiedBenchmarks(&recorder);
  benchmark::Shutdown();
  auto& t = recorder.seconds_per_forward;

  const std::string eager = "mlp64/eager/0";
  if (child) {
    const std::string k = "mlp64/kineto_capture/";
    if (!t.count(eager) || !t.count(k + "1") || !t.count(k + "0")) return 1;
    std::printf("%s %.9g %.9g %.9g\n", kChildResult, t[eager], t[k + "1"], t[k + "0"]);
    return 0;
  }

  double k_eager = 0, k_shapes = 0, k_plain = 0;
  bool kineto_ok = runKinetoChild(k_eager, k_shapes, k_plain);
  std::printf("\ncapture overhead, mlp at 64 tokens (dim 768, hidden 3072, bf16), per forward:\n");
  auto line = [](const char* what, double during, double base, const char* note) {
    std::printf("  %-34s %7.1f us vs %6.1f us eager -> %.2fx%s\n", what, during * 1e6, base * 1e6, during / base, note);
  };
  const std::string f = "mlp64/fuselab_capture/";
  if (t.count(eager) && t.count(f + "1") && t.count(f + "0")) {
    line("fuselab capture (input dims)", t[f + "1"], t[eager], "  (the default; target <= 1.25x)");
    line("fuselab capture (no input dims)", t[f + "0"], t[eager], "  (--no-shapes)");
  } else {
    std::printf("  fuselab capture: not measured (see the errors above)\n");
  }
  if (kineto_ok) {
    line("Kineto from C++ (input dims)", k_shapes, k_eager, "  (child process)");
    line("Kineto from C++ (no input dims)", k_plain, k_eager, "  (child process)");
  } else {
    std::printf("  Kineto from C++: not measured (the child process failed, output above)\n");
  }
  return 0;
}
