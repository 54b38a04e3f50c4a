// A 64-rank run built by tiling rank 0 of the HTA fixture (each copy with its
// own distributedInfo.rank and its clock moved by up to 0.6 ms):
// - RunOpen64: the 64 files read alone (loadRun), then opened as the window
//   opens them (openRunView: read and summarised rank by rank, analysed,
//   merged); counters give both and the ratio of the open to reading alone;
// - OverviewFrame64: one frame of the rank x time overview strip at 800
//   columns (cells and the rectangles drawn); target <= 4 ms per frame
//   (the counter budget_share is the frame's share of 4 ms);
// - LaneLayout64: laying out the merged trace's lanes by rank.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "bench/TiledRun.h"
#include "profiling/analysis/run/RunView.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "ui/layout/LaneLayout.h"
#include "ui/layout/RunOverview.h"

namespace {

using namespace fuselab;
namespace fs = std::filesystem;

constexpr int kRanks = 64;

// The 64 rank files, written once per process into a temporary folder
// that is removed at exit.
struct RankFiles {
  fs::path dir;
  std::vector<fs::path> paths;
  ~RankFiles() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

const std::vector<fs::path>& rankFiles() {
  static const RankFiles files = [] {
    const fs::path dir = fs::temp_directory_path() / ("fuselab-bench-run64-" + std::to_string(::getpid()));
    RankFiles out;
    out.dir = dir;
    out.paths = bench::writeTiledRun(dir, kRanks);
    return out;
  }();
  return files.paths;
}

void RunOpen64(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  const auto& files = rankFiles();
  size_t collectives = 0;
  double read_s = 0, open_s = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    benchmark::DoNotOptimize(loadRun(files).ranks.size());
    const auto t1 = Clock::now();
    const RunView v = openRunView(files);  // read, summarised, analysed and merged
    read_s += std::chrono::duration<double>(t1 - t0).count();
    open_s += std::chrono::duration<double>(Clock::now() - t1).count();
    collectives = v.analysis->collectives.size();
    benchmark::DoNotOptimize(v.merged.trace->eventCount());
  }
  const double n = double(state.iterations());
  state.counters["read_ms"] = 1e3 * read_s / n;
  state.counters["open_ms"] = 1e3 * open_s / n;
  state.counters["open_vs_read"] = open_s / read_s;
  state.counters["collectives"] = double(collectives);
}
BENCHMARK(RunOpen64)->Unit(benchmark::kMillisecond)->UseRealTime();

const RunView& view() {
  static const RunView v = openRunView(rankFiles());
  return v;
}

void OverviewFrame64(benchmark::State& state) {
  const RunView& v = view();
  const auto rows = ui::buildRankActivity(*v.run, *v.analysis);
  const double begin = double(v.merged.trace->beginNs()), end = double(v.merged.trace->endNs());
  std::vector<ui::RankActivity> cells;
  std::vector<ui::ActivityRun> runs;
  for (auto _ : state) {
    ui::rankActivityCells(rows, begin, end, 800, cells);
    ui::activityRuns(cells, rows.size(), 800, runs);
    benchmark::DoNotOptimize(runs.data());
  }
  state.counters["ranks"] = double(rows.size());
  state.counters["rects"] = double(runs.size());
  state.counters["budget_share"] = benchmark::Counter(double(state.iterations()) * 4e-3,
                                                      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(OverviewFrame64)->Unit(benchmark::kMicrosecond);

void LaneLayout64(benchmark::State& state) {
  const RunView& v = view();
  for (auto _ : state) benchmark::DoNotOptimize(ui::layoutLanes(*v.merged.trace).lanes.size());
}
BENCHMARK(LaneLayout64)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
