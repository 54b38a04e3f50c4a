// Per-frame cost of turning the visible part of a 1M-event trace into draw
// records (lane layout + folding + gap geometry + the step band and lines of
// 21,300 steps), at fit-all and in a 10 us window. Target: <= 4 ms per frame.
// And the memory lane's columns at fit-all for 1k and 1M memory events, as
// folded in a frame whose view moved: each column a max-tree query over its
// own points, found by galloping from the column before (this VM: 0.014 ms
// at 1k, 0.15 ms at 1M for 1600 columns; the tree's cache misses are the
// rest). A frame whose view did not move folds nothing (MemoryLane.h).
// FUSELAB_BENCH_KERNELS=5000000 makes it the 10M-event trace (issue 22).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>

#include "profiling/analysis/single/Analysis.h"
#include "tests/ui/UiTestTraces.h"
#include "ui/layout/DepthIndex.h"
#include "ui/layout/EventFolding.h"
#include "ui/layout/GapGeometry.h"
#include "ui/layout/LaneLayout.h"
#include "ui/layout/MemoryFolding.h"
#include "ui/layout/StepMarks.h"

namespace {

using namespace fuselab;
using namespace fuselab::ui;

struct Scene {
  Trace trace;
  TraceAnalysis analysis;
  LaneLayout layout;
  DepthIndex index;
  GapIndex gaps;
};

// 500k kernels (each launched by a cudaLaunchKernel: 1M events plus the
// step), 2 ns kernels every 5 ns.
const Scene& scene() {
  static const std::unique_ptr<Scene> s = [] {
    auto sc = std::make_unique<Scene>();
    const char* env = std::getenv("FUSELAB_BENCH_KERNELS");
    size_t kernels = env && *env ? std::strtoull(env, nullptr, 10) : 500'000;
    sc->trace = test::manyTinyKernels(kernels, 2, 5);
    sc->trace.finalize();
    sc->analysis = analyzeTrace(sc->trace);
    // As many steps as the 1M-event Kineto trace has, spread over the span.
    const size_t steps = 21'300;
    int64_t begin = sc->trace.beginNs(), span = sc->trace.endNs() - begin;
    sc->analysis.steps.assign(steps, StepStats{});
    for (size_t i = 0; i < steps; ++i) {
      sc->analysis.steps[i].start_ns = begin + span * int64_t(i) / int64_t(steps);
      sc->analysis.steps[i].end_ns = begin + span * int64_t(i + 1) / int64_t(steps) - 1;
    }
    sc->layout = layoutLanes(sc->trace);
    sc->index = DepthIndex(sc->trace);
    sc->gaps = GapIndex(sc->analysis.gaps);
    return sc;
  }();
  return *s;
}

void frame(benchmark::State& state, double begin, double end) {
  const Scene& s = scene();
  TimeAxis axis;
  axis.origin_px = 200;
  axis.width_px = 1600;
  axis.fit(begin, end);
  std::vector<LaneRecords> lanes(s.layout.lanes.size());
  std::vector<GapRect> gap_rects;
  std::vector<StepMark> step_marks;
  std::vector<float> step_lines;
  size_t records = 0;
  for (auto _ : state) {
    records = 0;
    for (size_t i = 0; i < s.layout.lanes.size(); ++i) {
      uint32_t t = s.layout.lanes[i].track;
      foldTrack(t, s.index.track(t), axis, FoldOptions{3}, lanes[i]);
      records += lanes[i].records.size();
    }
    gap_rects.clear();
    gapRects(s.analysis.gaps, s.gaps, s.layout, axis, gap_rects);
    stepMarks(s.analysis.steps, axis, 3.0f, step_marks);
    stepLines(step_marks, axis, 2.0f, step_lines);
    benchmark::DoNotOptimize(lanes.data());
    benchmark::DoNotOptimize(step_lines.data());
    benchmark::DoNotOptimize(gap_rects.data());
  }
  state.counters["events"] = static_cast<double>(s.trace.eventCount());
  state.counters["gaps"] = static_cast<double>(s.analysis.gaps.size());
  state.counters["draw_records"] = static_cast<double>(records);
  state.counters["gap_rects"] = static_cast<double>(gap_rects.size());
  state.counters["step_marks"] = static_cast<double>(step_marks.size());
  state.counters["step_lines"] = static_cast<double>(step_lines.size());
}

void BM_FitAll(benchmark::State& state) {
  const Scene& s = scene();
  frame(state, static_cast<double>(s.trace.beginNs()), static_cast<double>(s.trace.endNs()));
}

void BM_TenMicrosecondWindow(benchmark::State& state) {
  const Scene& s = scene();
  double mid = (static_cast<double>(s.trace.beginNs()) + static_cast<double>(s.trace.endNs())) / 2;
  frame(state, mid, mid + 10'000);
}

// Mid zoom: about 3 ns per pixel, where runs of events start to fold.
void BM_FiveMicrosecondWindow(benchmark::State& state) {
  const Scene& s = scene();
  double mid = (static_cast<double>(s.trace.beginNs()) + static_cast<double>(s.trace.endNs())) / 2;
  frame(state, mid, mid + 5'000);
}

void BM_OneMillisecondWindow(benchmark::State& state) {
  const Scene& s = scene();
  double mid = (static_cast<double>(s.trace.beginNs()) + static_cast<double>(s.trace.endNs())) / 2;
  frame(state, mid, mid + 1'000'000);
}

// A device's memory curve of `points` events over 10 ms, folded to 1600 px.
void BM_MemoryLane(benchmark::State& state) {
  const size_t points = size_t(state.range(0));
  MemoryCurve curve;
  for (size_t i = 0; i < points; ++i) {
    curve.ts_ns.push_back(int64_t(i * (10'000'000 / points)));
    curve.allocated.push_back(int64_t((i * 7919) % 100'000));
    curve.reserved.push_back(200'000);
    curve.track.push_back(UINT32_MAX);
  }
  const MemoryFolding folding(curve);
  TimeAxis axis;
  axis.width_px = 1600;
  axis.fit(0, 10'000'000);
  for (auto _ : state) benchmark::DoNotOptimize(folding.fold(axis, 0, 1600));
}
BENCHMARK(BM_MemoryLane)->Arg(1'000)->Arg(1'000'000)->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_FitAll)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TenMicrosecondWindow)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FiveMicrosecondWindow)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OneMillisecondWindow)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
