// The critical path (CriticalPath.h) and the analysis it joins, measured
// side by side in one process:
// - Trace1M: the eager MLP fixture tiled to 1M events (bench/TiledTrace.h):
//   `fuselab analyze`'s work without the path (import, analyzeTrace) and
//   with it (import, analyzeTraceWithPath: the path, then the analysis);
//   counter share = with / without - 1, the time it adds (target <= 0.2);
//   the path alone; extra_peak_mb: how far the path alone raised the
//   process's peak memory.
// - Run16: 16 ranks tiled from rank 0 of the HTA NCCL fixture, each with its
//   own rank and a clock a little off: `fuselab analyze DIR`'s work without
//   the path (the streaming pass: each rank read and summarised, then the
//   run's analysis) and with it (the same pass also building each rank's
//   part of the graph, then the parts joined and the path read against the
//   ranks' traces: runCriticalPath), each first in every other iteration;
//   share as above; path_ms: runCriticalPath alone, extra_peak_mb the growth
//   of peak memory it caused; and, for comparison, a
//   merge of the ranks and the parts of the path one after another:
//   collective dependencies, the parts joined, one schedule; and the graph
//   built over the merged trace instead.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <filesystem>
#include <optional>

#include "bench/TiledRun.h"
#include "bench/TiledTrace.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/critical_path/AnalysisWithPath.h"
#include "profiling/analysis/critical_path/CriticalPath.h"
#include "profiling/analysis/critical_path/CriticalPathGraph.h"
#include "profiling/analysis/run/RunCriticalPath.h"
#include "profiling/analysis/run/RunStreaming.h"
#include "profiling/trace/ChromeTraceImport.h"

namespace {

using namespace fuselab;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

double peakMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// Removes the folder at exit.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("fuselab-bench-cp-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};
TempDir& tempDir() {
  static TempDir d;
  return d;
}

void Trace1M(benchmark::State& state) {
  const std::string file = (tempDir().path / "tiled.json").string();
  const size_t events = bench::writeTiledTrace(file, 1'000'000);
  double without_s = 0, with_s = 0, path_s = 0, extra_peak = 0;
  size_t steps = 0;
  for (auto _ : state) {
    // `fuselab analyze` before the path (import, analysis) and with it
    // (import, analysis beside the path), alternating in one process.
    const auto t0 = Clock::now();
    {
      const Trace trace = importChromeTrace(file);
      benchmark::DoNotOptimize(analyzeTrace(trace).kernel_count);
    }
    const auto t1 = Clock::now();
    const Trace trace = importChromeTrace(file);
    const AnalysisWithPath both = analyzeTraceWithPath(trace);
    const auto t2 = Clock::now();
    const double peak_before = peakMb();
    const CriticalPathAnalysis cp = analyzeCriticalPath(trace);
    const auto t3 = Clock::now();
    extra_peak = std::max(extra_peak, peakMb() - peak_before);
    without_s += seconds(t0, t1), with_s += seconds(t1, t2), path_s += seconds(t2, t3);
    steps = both.critical_path.steps.size();
    benchmark::DoNotOptimize(cp.steps.size());
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["events"] = static_cast<double>(events);
  state.counters["steps"] = static_cast<double>(steps);
  state.counters["analyze_ms"] = without_s / n * 1e3;
  state.counters["analyze_with_path_ms"] = with_s / n * 1e3;
  state.counters["critical_path_alone_ms"] = path_s / n * 1e3;
  state.counters["share"] = with_s / without_s - 1;
  state.counters["extra_peak_mb"] = extra_peak;
}
BENCHMARK(Trace1M)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

void Run16(benchmark::State& state) {
  const std::vector<fs::path> files = bench::writeTiledRun(tempDir().path, 16);
  double without_s = 0, with_s = 0, path_s = 0, merge_s = 0, deps_s = 0, join_s = 0, schedule_s = 0, graph_s = 0;
  double extra_peak = 0;
  size_t events = 0, collectives = 0;
  RunStreamOptions withParts;
  withParts.critical_path_parts = true;
  bool with_first = false;
  for (auto _ : state) {
    // `fuselab analyze DIR` before the path (the streaming pass) and with it
    // (then the merge and the path, which need every rank's events), in
    // turns: each goes first every other iteration.
    double without = 0, with = 0;
    auto analyzeWithout = [&] {
      const auto t0 = Clock::now();
      benchmark::DoNotOptimize(streamRun(files).analysis.collectives.size());
      without = seconds(t0, Clock::now());
    };
    auto analyzeWith = [&] {
      const auto t0 = Clock::now();
      const StreamedRun streamed = streamRun(files, withParts);
      benchmark::DoNotOptimize(runCriticalPath(*streamed.run, streamed.analysis, streamed.path_parts).value().steps.size());
      with = seconds(t0, Clock::now());
    };
    if (with_first) analyzeWith(), analyzeWithout();
    else analyzeWithout(), analyzeWith();
    with_first = !with_first;
    without_s += without, with_s += with;
    const StreamedRun streamed = streamRun(files, withParts);
    const Run& run = *streamed.run;
    const RunAnalysis& a = streamed.analysis;
    const double peak_before = peakMb();
    const auto t1 = Clock::now();  // the path alone, as `analyze DIR` reads it
    benchmark::DoNotOptimize(runCriticalPath(run, a, streamed.path_parts).value().steps.size());
    const auto t2 = Clock::now();
    extra_peak = std::max(extra_peak, peakMb() - peak_before);
    // For comparison, one after another: a merge of the ranks (the window's
    // lanes; `analyze DIR` needs none), the collectives' dependencies, the
    // parts joined, one schedule (the what-ifs run more); then the graph
    // built over the merged trace instead.
    const MergedRun again = mergeRun(run, a.alignment.offsets_ns);
    const auto t4 = Clock::now();
    const std::vector<CollectiveDependency> deps = collectiveDependencies(a, again);
    const auto t5 = Clock::now();
    std::vector<const CriticalPathGraph*> parts;
    for (const auto& p : streamed.path_parts) parts.push_back(p.get());
    const std::optional<CriticalPathGraph> graph =
        CriticalPathGraph::join(parts, again.track_of, a.alignment.offsets_ns, again.trace->tracks.size(), deps);
    const auto t6 = Clock::now();
    std::vector<int64_t> times;
    graph->schedule({}, times);
    const auto t7 = Clock::now();
    benchmark::DoNotOptimize(CriticalPathGraph(*again.trace, deps).nodeCount());
    const auto t8 = Clock::now();
    merge_s += seconds(t2, t4), deps_s += seconds(t4, t5), join_s += seconds(t5, t6), schedule_s += seconds(t6, t7);
    graph_s += seconds(t7, t8);
    path_s += seconds(t1, t2);
    events = again.trace->eventCount();
    collectives = a.collectives.size();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["events"] = static_cast<double>(events);
  state.counters["collectives"] = static_cast<double>(collectives);
  state.counters["analyze_ms"] = without_s / n * 1e3;
  state.counters["analyze_with_path_ms"] = with_s / n * 1e3;
  state.counters["path_ms"] = path_s / n * 1e3;
  state.counters["merge_ms"] = merge_s / n * 1e3;
  state.counters["dependencies_ms"] = deps_s / n * 1e3;
  state.counters["join_ms"] = join_s / n * 1e3;
  state.counters["schedule_ms"] = schedule_s / n * 1e3;
  state.counters["graph_over_merged_ms"] = graph_s / n * 1e3;
  state.counters["share"] = with_s / without_s - 1;
  state.counters["extra_peak_mb"] = extra_peak;
}
BENCHMARK(Run16)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(6);

}  // namespace

BENCHMARK_MAIN();
