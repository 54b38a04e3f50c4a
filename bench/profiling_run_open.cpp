// Opening runs larger than memory (RunStreaming.h, RunView.h) at 2, 16 and
// 128 ranks of a generated run (bench/LargeRun.h): each run opened in a new
// process of its own (bench/SelfInNewProcess.h: its time and peak memory
// growth), then one rank's lanes loaded there; beside it, one rank file
// imported alone in another new process.
// Counters per rank count:
//  - json_gb, open_s, s_per_gb (target: flat as ranks grow), peak_gb (growth
//    of peak RSS; target at 128 ranks on 23 GB: at most 4), events_kept;
//  - summary_ratio: open_s over the ideal, the bytes read once at the single
//    file's import speed per core (its import on one thread, the median of
//    three) divided by the cores (target: at most 1.5);
//  - lanes_ratio: loading one rank's lanes over that rank's import alone, as
//    the window imports one file (target: at most 1), each the median of
//    three; lanes_vs_import_here: the same lanes over importing their file in
//    the open run's process (what the merge adds, apart from the process);
//  - busy_cores: the open's CPU time (every thread, user and system) over its
//    time, and cpu_per_rank_ratio: that CPU time per rank over the single
//    file's import on one thread (how much more each rank costs side by side).
// FUSELAB_BENCH_RUN_RANKS: rank counts (default "2,16"; "2,16,128" for the
// full run, about 36 GB of JSON at the default events);
// FUSELAB_BENCH_RANK_EVENTS: events per rank (default 1M, about 280 MB);
// FUSELAB_BENCH_RUN_GZIP=1: .json.gz files; FUSELAB_BENCH_RUN_DIR: where to
// write (default a temporary folder; each run is removed once measured,
// unless FUSELAB_BENCH_RUN_KEEP=1: for bench/profiling_run_open_hta.py).
// FUSELAB_AVAILABLE_MEMORY sets the memory the run may use, as for fuselab;
// FUSELAB_BENCH_RUN_THREADS the ranks read at once (default: the program's);
// FUSELAB_BENCH_RUN_SERIAL_IMPORTS=1 parses each rank on its reading thread alone.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/ImportInNewProcess.h"
#include "bench/LargeRun.h"
#include "bench/ProcStatus.h"
#include "bench/SelfInNewProcess.h"
#include "profiling/analysis/run/RunView.h"
#include "profiling/trace/ChromeTraceImport.h"

namespace {

namespace fs = std::filesystem;
using namespace fuselab;

constexpr const char* kOpenRun = "--open-run";

struct OpenMeasured {
  double seconds = -1;  // -1: failed
  double peak_bytes = 0;
  double cpu_seconds = 0;
  double lanes_seconds = -1;  // -1: the events were kept (no lanes to load)
  double import_here_seconds = -1;
  bool kept = false;
  size_t ranks = 0;
  size_t collectives = 0;
};

std::string env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

double median(std::vector<double> three) {
  std::sort(three.begin(), three.end());
  return three[three.size() / 2];
}

// The wall time of f(), not counting freeing what it made (as a new
// process's import is measured).
template <class F>
double secondsOf(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto made = f();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  benchmark::DoNotOptimize(&made);
  return seconds;
}

int openRunIfAsked(int argc, char** argv) {
  if (argc != 3 || std::string(argv[1]) != kOpenRun) return -1;
  OpenMeasured m;
  const long before = bench::statusKb("VmRSS:");
  try {
    const double cpu0 = bench::cpuSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    RunStreamOptions options;
    options.reading.threads = static_cast<unsigned>(std::atoi(env("FUSELAB_BENCH_RUN_THREADS", "0").c_str()));
    options.reading.import.parallel = env("FUSELAB_BENCH_RUN_SERIAL_IMPORTS", "0") != "1";
    const RunView v = openRunView({fs::path(argv[2])}, options);
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m.cpu_seconds = bench::cpuSeconds() - cpu0;
    m.peak_bytes = double(bench::statusKb("VmHWM:") - before) * 1024;
    m.kept = !v.eventsDropped();
    m.ranks = v.run->ranks.size();
    m.collectives = v.analysis->collectives.size();
    if (v.eventsDropped()) {
      // Three ranks' lanes, each beside its file imported here (turn about,
      // so a drift in the box's speed reaches both alike); the medians.
      std::vector<double> lanes, here;
      for (size_t k = 0; k < 3; ++k) {
        const size_t pos = (v.run->ranks.size() / 2 + k) % v.run->ranks.size();
        lanes.push_back(secondsOf([&] { return withRankLanes(v, pos); }));
        here.push_back(secondsOf([&] { return importChromeTrace(v.run->ranks[pos].file); }));
      }
      m.lanes_seconds = median(lanes);
      m.import_here_seconds = median(here);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opening %s: %s\n", argv[2], e.what());
    m.seconds = -1;
  }
  return bench::sendToParent(m);
}

bench::ImportMeasured medianImport(const std::string& file, bool parallel) {
  std::vector<bench::ImportMeasured> three;
  for (int i = 0; i < 3; ++i) three.push_back(bench::importInNewProcess(file, parallel));
  std::sort(three.begin(), three.end(), [](const auto& a, const auto& b) { return a.seconds < b.seconds; });
  return three[1];
}

void OpenRun(benchmark::State& state, int ranks) {
  const size_t events = std::strtoull(env("FUSELAB_BENCH_RANK_EVENTS", "1000000").c_str(), nullptr, 10);
  const bool gzip = env("FUSELAB_BENCH_RUN_GZIP", "0") == "1";
  const fs::path dir = fs::path(env("FUSELAB_BENCH_RUN_DIR", fs::temp_directory_path().c_str())) /
                       ("fuselab-bench-run-" + std::to_string(::getpid()) + "-" + std::to_string(ranks));
  const bench::LargeRun run = bench::writeLargeRun(dir, ranks, events, gzip);
  OpenMeasured m;
  bench::ImportMeasured single, serial;
  for (auto _ : state) {
    // The imports alone, each the median of three: one box's single
    // measure moved from 1.33 to 1.99 s on one thread between runs.
    single = medianImport(run.files.front().string(), true);
    serial = medianImport(run.files.front().string(), false);
    m = bench::runSelfInNewProcess<OpenMeasured>(kOpenRun, dir.string());
  }
  if (env("FUSELAB_BENCH_RUN_KEEP", "0") != "1") fs::remove_all(dir);
  if (m.seconds < 0) {
    state.SkipWithError("opening the run failed (stderr says why)");
    return;
  }
  const double gb = double(run.json_bytes) / 1e9;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const double ideal = double(ranks) * serial.seconds / double(std::min<unsigned>(cores, unsigned(ranks)));
  state.counters["json_gb"] = gb;
  state.counters["open_s"] = m.seconds;
  state.counters["s_per_gb"] = m.seconds / gb;
  state.counters["peak_gb"] = m.peak_bytes / 1e9;
  state.counters["events_kept"] = m.kept ? 1 : 0;
  state.counters["collectives"] = double(m.collectives);
  state.counters["single_import_s"] = single.seconds;
  state.counters["serial_import_s"] = serial.seconds;
  state.counters["summary_ratio"] = m.seconds / ideal;
  state.counters["busy_cores"] = m.cpu_seconds / m.seconds;
  state.counters["cpu_per_rank_ratio"] = m.cpu_seconds / double(ranks) / serial.seconds;
  if (m.lanes_seconds >= 0) {
    state.counters["lanes_ratio"] = m.lanes_seconds / single.seconds;
    state.counters["lanes_vs_import_here"] = m.lanes_seconds / m.import_here_seconds;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (const int rc = openRunIfAsked(argc, argv); rc >= 0) return rc;
  if (const int rc = bench::importOneIfAsked(argc, argv); rc >= 0) return rc;
  std::stringstream counts(env("FUSELAB_BENCH_RUN_RANKS", "2,16"));
  for (std::string n; std::getline(counts, n, ',');) {
    const int ranks = std::atoi(n.c_str());
    if (ranks <= 0) continue;
    benchmark::RegisterBenchmark(("OpenRun/" + std::to_string(ranks)).c_str(),
                                 [ranks](benchmark::State& s) { OpenRun(s, ranks); })
        ->Unit(benchmark::kSecond)
        ->UseRealTime()
        ->Iterations(1);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
