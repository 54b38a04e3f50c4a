// Import speed and memory on a ~1M-event trace made by tiling the eager MLP
// fixture along the time axis, against Python's json.load on the same file.
// Targets (issue 22): at least 15x faster than json.load, peak memory at most
// 1.5x the file size. FUSELAB_BENCH_EVENTS=10000000 tiles 10M events (~3 GB;
// issue 22: peak at most 1.0x the file, at least 500 MB/s; set
// FUSELAB_BENCH_NO_PYTHON=1 to skip json.load, which needs tens of GB there).
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "bench/ImportInNewProcess.h"
#include "bench/TiledTrace.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/BuildPaths.h"

namespace {

using fuselab::Trace;
size_t targetEvents() {
  const char* env = std::getenv("FUSELAB_BENCH_EVENTS");
  return env && *env ? std::strtoull(env, nullptr, 10) : 1'000'000;
}

std::string g_path;
size_t g_file_bytes = 0;
size_t g_trace_events = 0;
double g_best_import_s = 1e30;
double g_best_python_s = 1e30;
double g_best_import_cpu_s = 1e30;
double g_best_python_cpu_s = 1e30;

// User + system CPU seconds of this process or of its finished children.
double cpuSeconds(int who) {
  rusage ru{};
  getrusage(who, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

void BM_ImportChromeTrace(benchmark::State& state) {
  size_t events = 0;
  for (auto _ : state) {
    double c0 = cpuSeconds(RUSAGE_SELF);
    auto t0 = std::chrono::steady_clock::now();
    Trace t = fuselab::importChromeTrace(g_path);
    auto t1 = std::chrono::steady_clock::now();
    g_best_import_cpu_s = std::min(g_best_import_cpu_s, cpuSeconds(RUSAGE_SELF) - c0);
    g_best_import_s = std::min(g_best_import_s, std::chrono::duration<double>(t1 - t0).count());
    events = t.eventCount() + t.raw_events.size() + t.flows.size() * 2;
    benchmark::DoNotOptimize(t);
  }
  state.counters["trace_events"] = double(g_trace_events);
  state.counters["events_per_s"] =
      benchmark::Counter(double(g_trace_events) * double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["bytes_per_s"] =
      benchmark::Counter(double(g_file_bytes) * double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["kept_items"] = double(events);
}

void BM_PythonJsonLoad(benchmark::State& state) {
  std::string cmd = std::string("'") + fuselab::build_paths::pythonExe() + "' -c \"import json; json.load(open('" + g_path + "'))\"";
  for (auto _ : state) {
    double c0 = cpuSeconds(RUSAGE_CHILDREN);
    auto t0 = std::chrono::steady_clock::now();
    int rc = std::system(cmd.c_str());
    auto t1 = std::chrono::steady_clock::now();
    g_best_python_cpu_s = std::min(g_best_python_cpu_s, cpuSeconds(RUSAGE_CHILDREN) - c0);
    if (rc != 0) {
      state.SkipWithError("python json.load failed");
      return;
    }
    double s = std::chrono::duration<double>(t1 - t0).count();
    g_best_python_s = std::min(g_best_python_s, s);
    state.SetIterationTime(s);
  }
  state.counters["events_per_s"] =
      benchmark::Counter(double(g_trace_events) * double(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_ImportChromeTrace)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);
BENCHMARK(BM_PythonJsonLoad)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(3);

int main(int argc, char** argv) {
  if (const int rc = fuselab::bench::importOneIfAsked(argc, argv); rc >= 0) return rc;
  benchmark::Initialize(&argc, argv);
  const char* tmp = std::getenv("TMPDIR");
  g_path = std::string(tmp && *tmp ? tmp : "/tmp") + "/fuselab_bench_tiled_" + std::to_string(getpid()) + ".json";
  std::cout << "generating " << g_path << " ...\n";
  g_trace_events = fuselab::bench::writeTiledTrace(g_path, targetEvents());
  {
    std::ifstream f(g_path, std::ios::binary | std::ios::ate);
    g_file_bytes = size_t(f.tellg());
  }
  std::cout << "tiled mlp_eager: " << g_trace_events << " traceEvents, " << g_file_bytes / 1e6 << " MB\n";

  const double growth = fuselab::bench::importInNewProcess(g_path).peak_bytes;
  if (std::getenv("FUSELAB_BENCH_NO_PYTHON")) benchmark::RunSpecifiedBenchmarks("BM_ImportChromeTrace");
  else benchmark::RunSpecifiedBenchmarks();

  double ratio = g_best_python_s / g_best_import_s;
  double cpu_ratio = g_best_python_cpu_s / g_best_import_cpu_s;
  double memory = growth / double(g_file_bytes);
  std::printf("\nimport: best %.3f s wall (%.3f s CPU) = %.2f M events/s, %.0f MB/s\n", g_best_import_s,
              g_best_import_cpu_s, double(g_trace_events) / g_best_import_s / 1e6,
              double(g_file_bytes) / g_best_import_s / 1e6);
  if (std::getenv("FUSELAB_BENCH_NO_PYTHON")) {
    std::printf("python json.load: not run (FUSELAB_BENCH_NO_PYTHON)\n");
  } else {
    std::printf("python json.load: best %.3f s wall (%.3f s CPU, process start included)\n", g_best_python_s,
                g_best_python_cpu_s);
    std::printf("speedup vs json.load: %.1fx wall, %.1fx CPU (target >= 15x) %s\n", ratio, cpu_ratio,
                ratio >= 15 ? "OK" : "BELOW TARGET");
  }
  std::printf("peak memory growth: %.1f MB = %.2fx the file (target <= 1.5x) %s\n", growth / 1e6, memory,
              memory <= 1.5 ? "OK" : "ABOVE TARGET");
  if (g_trace_events >= 10'000'000) {
    double mbps = double(g_file_bytes) / g_best_import_s / 1e6;
    std::printf("10M events: %.0f MB/s (target >= 500) %s, peak %.2fx the file (target <= 1.0x) %s\n", mbps,
                mbps >= 500 ? "OK" : "BELOW TARGET", memory, memory <= 1.0 ? "OK" : "ABOVE TARGET");
  }
  if (!std::getenv("FUSELAB_BENCH_KEEP")) std::remove(g_path.c_str());
  benchmark::Shutdown();
  return 0;
}
