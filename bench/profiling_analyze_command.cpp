// The whole `fuselab analyze FILE` command (import, analysis, text report),
// each run a fresh process, on the eager MLP fixture tiled to
// FUSELAB_BENCH_EVENTS events (default 1M; FUSELAB_BENCH_TRACE=FILE times an
// existing file instead of writing one). Targets: at 10M events (~2.8 GB)
// at least 500 MB/s of JSON over the command's wall time and a peak resident
// memory of at most 1.0x the file (before the critical path); at 1M events
// (~300 MB), with the critical path, a peak of at most 1.3x the file.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "bench/FuselabProcess.h"
#include "bench/TiledTrace.h"

namespace {

std::string g_path;
double g_file_bytes = 0;
double g_best_s = 1e30, g_sum_s = 0, g_peak_bytes = 0;
int g_runs = 0;

// One `fuselab analyze g_path` (stdout dropped, stderr kept): wall seconds
// and peak RSS bytes, or a negative time when it failed.
std::pair<double, double> runAnalyze() {
  const fuselab::bench::ProcessRun r = fuselab::bench::runFuselab({"analyze", g_path}, {}, /*keep_stderr=*/true);
  return {r.ok ? r.seconds : -1, r.peak_rss_mb * 1024 * 1024};
}

void BM_AnalyzeCommand(benchmark::State& state) {
  for (auto _ : state) {
    const auto [s, peak] = runAnalyze();
    if (s < 0) {
      state.SkipWithError("fuselab analyze failed");
      return;
    }
    state.SetIterationTime(s);
    g_best_s = std::min(g_best_s, s);
    g_sum_s += s;
    ++g_runs;
    g_peak_bytes = std::max(g_peak_bytes, peak);
  }
  state.counters["bytes_per_s"] =
      benchmark::Counter(g_file_bytes * double(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_AnalyzeCommand)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(3);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const char* given = std::getenv("FUSELAB_BENCH_TRACE");
  if (given && *given) {
    g_path = given;
  } else {
    const char* tmp = std::getenv("TMPDIR");
    const char* env = std::getenv("FUSELAB_BENCH_EVENTS");
    const size_t events = env && *env ? std::strtoull(env, nullptr, 10) : 1'000'000;
    g_path = std::string(tmp && *tmp ? tmp : "/tmp") + "/fuselab_bench_analyze_command_" + std::to_string(getpid()) +
             ".json";
    std::cout << "tiled mlp_eager: " << fuselab::bench::writeTiledTrace(g_path, events) << " traceEvents\n";
  }
  g_file_bytes = double(std::filesystem::file_size(g_path));
  benchmark::RunSpecifiedBenchmarks();
  if (g_runs > 0) {
    const double best_mbps = g_file_bytes / g_best_s / 1e6, mean_s = g_sum_s / g_runs;
    const double memory = g_peak_bytes / g_file_bytes;
    std::printf("\nfuselab analyze of %.0f MB: best %.3f s = %.0f MB/s (mean %.3f s = %.0f MB/s), target at 10M events >= 500 %s\n",
                g_file_bytes / 1e6, g_best_s, best_mbps, mean_s, g_file_bytes / mean_s / 1e6,
                best_mbps >= 500 ? "OK" : "BELOW TARGET");
    std::printf("peak resident memory: %.1f MB = %.2fx the file, target at 1M events <= 1.3x %s, at 10M events <= 1.0x %s\n",
                g_peak_bytes / 1e6, memory, memory <= 1.3 ? "OK" : "ABOVE TARGET", memory <= 1.0 ? "OK" : "ABOVE TARGET");
  }
  if (!given || !*given) std::remove(g_path.c_str());
  benchmark::Shutdown();
  return 0;
}
