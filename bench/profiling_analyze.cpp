// Analysis speed against trace length: analyzeTrace on the eager MLP fixture
// tiled to N events (FUSELAB_BENCH_EVENTS, default 1M) and to N/5, each
// imported once. Targets: the analysis scales about linearly (time per event
// at N at most 1.5x that at N/5) and takes at most 2x the import at N. Before
// the step lookup was a binary search it was quadratic: 140 s of a 150 s
// analyze at 10M events. Also the flame graph of the captured steps (CPU
// and GPU time by stack) at N: at most 0.25x the import.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "bench/TiledTrace.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/stacks/FlameGraph.h"
#include "profiling/trace/ChromeTraceImport.h"

namespace {

struct Sample {
  size_t events = 0;
  double import_s = 0;
  double best_analyze_s = 1e30;
  double best_flame_s = 1e30;
  fuselab::Trace trace;
};
Sample g_small, g_large;

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void load(Sample& s, size_t target_events) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/fuselab_bench_analyze_" +
                           std::to_string(getpid()) + "_" + std::to_string(target_events) + ".json";
  s.events = fuselab::bench::writeTiledTrace(path, target_events);
  const auto t0 = std::chrono::steady_clock::now();
  s.trace = fuselab::importChromeTrace(path);
  s.import_s = secondsSince(t0);
  std::remove(path.c_str());
  std::cout << "tiled mlp_eager: " << s.events << " traceEvents, import " << s.import_s << " s\n";
}

void analyze(benchmark::State& state, Sample& s) {
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    fuselab::TraceAnalysis a = fuselab::analyzeTrace(s.trace);
    s.best_analyze_s = std::min(s.best_analyze_s, secondsSince(t0));
    benchmark::DoNotOptimize(a);
  }
  state.counters["trace_events"] = double(s.events);
  state.counters["events_per_s"] =
      benchmark::Counter(double(s.events) * double(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_FlameGraphFull(benchmark::State& state) {
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    fuselab::FlameGraph g = fuselab::buildFlameGraph(g_large.trace, fuselab::analysisFlameRange(g_large.trace));
    g_large.best_flame_s = std::min(g_large.best_flame_s, secondsSince(t0));
    state.counters["frames"] = double(g.frames.size());
    benchmark::DoNotOptimize(g);
  }
}

void BM_AnalyzeFifth(benchmark::State& state) { analyze(state, g_small); }
void BM_AnalyzeFull(benchmark::State& state) { analyze(state, g_large); }

}  // namespace

BENCHMARK(BM_AnalyzeFifth)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_AnalyzeFull)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_FlameGraphFull)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const char* env = std::getenv("FUSELAB_BENCH_EVENTS");
  const size_t events = env && *env ? std::strtoull(env, nullptr, 10) : 1'000'000;
  load(g_small, events / 5);
  load(g_large, events);
  benchmark::RunSpecifiedBenchmarks();

  const double per_event_small = g_small.best_analyze_s / double(g_small.events);
  const double per_event_large = g_large.best_analyze_s / double(g_large.events);
  const double growth = per_event_large / per_event_small;
  const double vs_import = g_large.best_analyze_s / g_large.import_s;
  std::printf("\nanalyze: %zu events %.3f s, %zu events %.3f s\n", g_small.events, g_small.best_analyze_s,
              g_large.events, g_large.best_analyze_s);
  std::printf("time per event at 5x the events: %.2fx (target <= 1.5x, linear = 1x) %s\n", growth,
              growth <= 1.5 ? "OK" : "ABOVE TARGET");
  std::printf("analysis / import at %zu events: %.2fx (target <= 2x) %s\n", g_large.events, vs_import,
              vs_import <= 2 ? "OK" : "ABOVE TARGET");
  const double flame_vs_import = g_large.best_flame_s / g_large.import_s;
  std::printf("flame graph / import at %zu events: %.2fx (target <= 0.25x) %s\n", g_large.events, flame_vs_import,
              flame_vs_import <= 0.25 ? "OK" : "ABOVE TARGET");
  benchmark::Shutdown();
  return 0;
}
