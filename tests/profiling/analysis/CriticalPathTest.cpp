// The critical path on constructed traces with known answers, and on the
// recorded fixtures (its segments tile every step).
#include "profiling/analysis/critical_path/CriticalPath.h"

#include <gtest/gtest.h>

#include <numeric>

#include "profiling/analysis/critical_path/CriticalPathGraph.h"
#include "profiling/analysis/run/RunCriticalPath.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/RunLoader.h"
#include "tests/support/AddEvent.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

using test::addEvent;

int64_t kindNs(const StepPath& p, PathKind k) { return p.by_kind[static_cast<size_t>(k)]; }

void expectTiles(const Trace& trace, const StepPath& p) {
  SCOPED_TRACE(p.name);
  int64_t at = p.start_ns, total = 0;
  for (const PathSegment& s : p.segments) {
    EXPECT_EQ(s.start_ns, at) << "segments follow each other";
    EXPECT_GT(s.dur_ns, 0);
    ASSERT_LT(s.track, trace.tracks.size());
    at = s.start_ns + s.dur_ns;
    total += s.dur_ns;
  }
  EXPECT_EQ(total, p.wall_ns);
  EXPECT_EQ(std::accumulate(p.by_kind.begin(), p.by_kind.end(), int64_t{0}), p.wall_ns);
}

const PathSegment* segmentNamed(const Trace& t, const StepPath& p, std::string_view name) {
  for (const PathSegment& s : p.segments)
    if (s.event && t.name(*s.event) == name) return &s;
  return nullptr;
}

TEST(CriticalPath, ACpuBoundStepRunsThroughTheCpuOpsAndLaunches) {
  Trace t;
  const uint32_t cpu = t.trackFor("1", "1"), gpu = t.trackFor("0", "7");
  addEvent(t, cpu, "ProfilerStep#1", 0, 100, Category::UserAnnotation);
  addEvent(t, cpu, "aten::linear", 0, 90, Category::CpuOp);
  addEvent(t, cpu, "cudaLaunchKernel", 10, 10, Category::CudaRuntime, 1);
  addEvent(t, gpu, "gemm", 25, 5, Category::Kernel, 1);
  t.finalize();
  const CriticalPathAnalysis cp = analyzeCriticalPath(t);
  ASSERT_EQ(cp.steps.size(), 1u);
  const StepPath& p = cp.steps[0];
  expectTiles(t, p);
  EXPECT_EQ(p.wall_ns, 100);
  EXPECT_EQ(kindNs(p, PathKind::Cpu), 90);     // aten::linear around the launch, then the step's own tail
  EXPECT_EQ(kindNs(p, PathKind::Launch), 10);  // the launch call itself
  EXPECT_EQ(kindNs(p, PathKind::Gpu), 0);
  ASSERT_TRUE(segmentNamed(t, p, "cudaLaunchKernel"));
}

// Three kernels back to back behind a synchronize: the path runs through them.
Trace gpuBoundStep() {
  Trace t;
  const uint32_t cpu = t.trackFor("1", "1"), gpu = t.trackFor("0", "7");
  addEvent(t, cpu, "ProfilerStep#1", 0, 1000, Category::UserAnnotation);
  for (int k = 0; k < 3; ++k) {
    addEvent(t, cpu, "cudaLaunchKernel", 10 + 10 * k, 5, Category::CudaRuntime, k + 1);
    addEvent(t, gpu, "gemm", 20 + 300 * k, 300, Category::Kernel, k + 1);
  }
  addEvent(t, cpu, "cudaDeviceSynchronize", 40, 890, Category::CudaRuntime);  // returns 10 ns after the GPU
  t.finalize();
  return t;
}

TEST(CriticalPath, AGpuBoundStepRunsThroughTheKernelsAndTheSynchronize) {
  const Trace t = gpuBoundStep();
  const CriticalPathAnalysis cp = analyzeCriticalPath(t);
  ASSERT_EQ(cp.steps.size(), 1u);
  const StepPath& p = cp.steps[0];
  expectTiles(t, p);
  EXPECT_EQ(kindNs(p, PathKind::Gpu), 900);
  EXPECT_EQ(kindNs(p, PathKind::Wait), 10);    // the synchronize returning after the last kernel
  EXPECT_EQ(kindNs(p, PathKind::Launch), 10);  // the first kernel's launch, 10 ns until it started
  EXPECT_EQ(kindNs(p, PathKind::Cpu), 80);     // before the first launch and after the synchronize
}

TEST(CriticalPath, HalvingTheKernelsShortensTheStepByWhatTheyHeld) {
  const Trace t = gpuBoundStep();
  const CriticalPathAnalysis cp = analyzeCriticalPath(t);
  ASSERT_FALSE(cp.what_if.empty());
  const WhatIf& w = cp.what_if[0];
  EXPECT_EQ(w.name, "gemm");
  EXPECT_EQ(w.kind, PathKind::Gpu);
  EXPECT_EQ(w.on_path_ns, 900);
  EXPECT_EQ(w.steps_ns_before, 1000);
  // The kernels run 150 ns each from 20: the synchronize returns at 480, the step ends 70 ns later.
  EXPECT_EQ(w.steps_ns_after, 550);
  EXPECT_NEAR(w.change(), -0.45, 1e-9);
}

TEST(CriticalPath, AStepWhoseGpuRunsBehindIsMeasuredByItsGpuWork) {
  Trace t;  // no synchronize: the CPU launches both steps' kernels long before the GPU runs them
  const uint32_t cpu = t.trackFor("1", "1"), gpu = t.trackFor("0", "7");
  addEvent(t, cpu, "ProfilerStep#1", 0, 100, Category::UserAnnotation);
  addEvent(t, cpu, "cudaLaunchKernel", 40, 5, Category::CudaRuntime, 1);
  addEvent(t, gpu, "gemm", 50, 400, Category::Kernel, 1);
  addEvent(t, cpu, "ProfilerStep#2", 110, 90, Category::UserAnnotation);
  addEvent(t, cpu, "cudaLaunchKernel", 150, 5, Category::CudaRuntime, 2);
  addEvent(t, gpu, "gemm", 450, 400, Category::Kernel, 2);
  t.finalize();
  const CriticalPathAnalysis cp = analyzeCriticalPath(t);
  ASSERT_EQ(cp.steps.size(), 2u);
  for (const StepPath& p : cp.steps) expectTiles(t, p);
  EXPECT_EQ(cp.steps[0].start_ns, 0);
  EXPECT_EQ(cp.steps[0].wall_ns, 450);  // until its kernel ended
  EXPECT_EQ(kindNs(cp.steps[0], PathKind::Gpu), 400);
  EXPECT_EQ(cp.steps[1].start_ns, 450);  // where step 1's work ended
  EXPECT_EQ(cp.steps[1].wall_ns, 400);
  EXPECT_EQ(kindNs(cp.steps[1], PathKind::Gpu), 400);
}

TEST(CriticalPath, TheStepsOwnTimeIsOneWhatIfForEveryStep) {
  Trace t;  // two steps of 100 ns, each 80 ns in no recorded op (a model's Python, a sleep)
  const uint32_t cpu = t.trackFor("1", "1");
  for (int k = 0; k < 2; ++k) {
    addEvent(t, cpu, "ProfilerStep#" + std::to_string(k + 1), 100 * k, 100, Category::UserAnnotation);
    addEvent(t, cpu, "aten::add", 100 * k + 80, 20, Category::CpuOp);
  }
  t.finalize();
  const CriticalPathAnalysis cp = analyzeCriticalPath(t);
  ASSERT_FALSE(cp.what_if.empty());
  const WhatIf& w = cp.what_if[0];
  EXPECT_EQ(w.name, "ProfilerStep#* own time");
  EXPECT_EQ(w.kind, PathKind::Cpu);
  EXPECT_EQ(w.on_path_ns, 160);
  EXPECT_EQ(w.steps_ns_before, 200);
  EXPECT_EQ(w.steps_ns_after, 120);  // 40 + 20 per step
}

TEST(CriticalPath, ABlockingCopyWaitsForItsCopyALaunchDoesNotForItsKernel) {
  Trace t;
  const uint32_t cpu = t.trackFor("1", "1"), gpu = t.trackFor("0", "7");
  addEvent(t, cpu, "ProfilerStep#1", 0, 200, Category::UserAnnotation);
  // A tiny kernel done before its launch call returned: the call did not wait.
  addEvent(t, cpu, "cudaLaunchKernel", 10, 20, Category::CudaRuntime, 1);
  addEvent(t, gpu, "tiny", 15, 2, Category::Kernel, 1);
  // A copy to the host: the call returns after the copy.
  addEvent(t, cpu, "cudaMemcpyAsync", 50, 100, Category::CudaRuntime, 2);
  addEvent(t, gpu, "Memcpy DtoH (Device -> Pageable)", 60, 80, Category::Memcpy, 2);
  t.finalize();
  const CriticalPathAnalysis cp = analyzeCriticalPath(t);
  ASSERT_EQ(cp.steps.size(), 1u);
  const StepPath& p = cp.steps[0];
  expectTiles(t, p);
  EXPECT_FALSE(segmentNamed(t, p, "tiny"));
  const PathSegment* copy = segmentNamed(t, p, "Memcpy DtoH (Device -> Pageable)");
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->kind, PathKind::Gpu);
  EXPECT_EQ(copy->dur_ns, 80);
  EXPECT_EQ(kindNs(p, PathKind::Wait), 10);  // the call returning 10 ns after its copy
}

TEST(CriticalPath, AWaitOnAnotherStreamLinksTheStreams) {
  Trace t;
  const uint32_t cpu = t.trackFor("1", "1"), s7 = t.trackFor("0", "7"), s13 = t.trackFor("0", "13");
  addEvent(t, cpu, "cudaLaunchKernel", 0, 5, Category::CudaRuntime, 1);
  addEvent(t, cpu, "cudaLaunchKernel", 10, 5, Category::CudaRuntime, 2);
  addEvent(t, s7, "producer", 100, 100, Category::Kernel, 1);
  addEvent(t, s13, "consumer", 201, 50, Category::Kernel, 2);  // waited for the producer, not its launch
  t.finalize();
  const CriticalPathAnalysis cp = analyzeCriticalPath(t);
  ASSERT_EQ(cp.steps.size(), 1u);
  const StepPath& p = cp.steps[0];
  EXPECT_EQ(p.name, "whole trace");
  expectTiles(t, p);
  ASSERT_TRUE(segmentNamed(t, p, "producer"));
  ASSERT_TRUE(segmentNamed(t, p, "consumer"));
  EXPECT_EQ(kindNs(p, PathKind::Wait), 1);
  EXPECT_EQ(kindNs(p, PathKind::Gpu), 150);
}

// Two ranks of a merged run: rank 1 computes 400 ns longer before the
// all-reduce, so rank 0's all-reduce ends only after rank 1 arrives.
Trace lateRankRun(std::vector<CollectiveDependency>& collectives) {
  Trace t;
  std::vector<EventRef> members;
  for (int r = 0; r < 2; ++r) {
    const std::string pid = std::to_string(100 + r), dev = std::to_string(r);
    const uint32_t cpu = t.trackFor(pid, "1"), gpu = t.trackFor(dev, "7");
    const int64_t compute = r == 1 ? 600 : 200;
    addEvent(t, cpu, "ProfilerStep#1", 0, 1000, Category::UserAnnotation);
    addEvent(t, cpu, "cudaLaunchKernel", 10, 5, Category::CudaRuntime, 10 * r + 1);
    addEvent(t, cpu, "cudaLaunchKernel", 20, 5, Category::CudaRuntime, 10 * r + 2);
    addEvent(t, cpu, "cudaDeviceSynchronize", 30, 880, Category::CudaRuntime);
    addEvent(t, gpu, "compute", 20, compute, Category::Kernel, 10 * r + 1);
    addEvent(t, gpu, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 20 + compute, 900 - 20 - compute,
             Category::Kernel, 10 * r + 2);
  }
  t.finalize();
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti) {
    Track& tr = t.tracks[ti];
    tr.rank = (tr.pid == 101 || (tr.kind == TrackKind::Gpu && tr.device == 1)) ? 1 : 0;
    if (tr.kind == TrackKind::Gpu)
      for (uint32_t i = 0; i < tr.size(); ++i)
        if (t.name({ti, i}).starts_with("nccl")) members.push_back({ti, i});
  }
  collectives.push_back({members});
  return t;
}

TEST(CriticalPath, ACollectiveWaitsForTheLateRanksWork) {
  std::vector<CollectiveDependency> collectives;
  const Trace t = lateRankRun(collectives);
  ASSERT_EQ(collectives[0].members.size(), 2u);
  const CriticalPathAnalysis cp = analyzeCriticalPath(t, collectives);
  ASSERT_EQ(cp.steps.size(), 1u);
  const StepPath& p = cp.steps[0];
  expectTiles(t, p);
  // The path passes through rank 1's compute, not rank 0's.
  const PathSegment* compute = segmentNamed(t, p, "compute");
  ASSERT_TRUE(compute);
  EXPECT_EQ(compute->rank, 1);
  EXPECT_EQ(compute->dur_ns, 600);
  // Halving rank 1's compute shortens the step by 300 ns; rank 0's buys nothing.
  bool saw_rank1 = false;
  for (const WhatIf& w : cp.what_if) {
    if (w.name != "compute") continue;
    EXPECT_EQ(w.rank, 1);
    EXPECT_EQ(w.steps_ns_before - w.steps_ns_after, 300);
    saw_rank1 = true;
  }
  EXPECT_TRUE(saw_rank1);
}

TEST(CriticalPath, ItsSegmentsTileEveryStepOfTheRecordedTraces) {
  for (const char* name : {"linear_eager.json.gz", "mlp_eager.json.gz", "multistream_memcpy.json.gz"}) {
    SCOPED_TRACE(name);
    const Trace t = importChromeTrace(test::fixture(name));
    const CriticalPathAnalysis cp = analyzeCriticalPath(t);
    ASSERT_FALSE(cp.steps.empty());
    for (const StepPath& p : cp.steps) expectTiles(t, p);
    for (const WhatIf& w : cp.what_if) {
      EXPECT_GT(w.on_path_ns, 0);
      EXPECT_LE(w.steps_ns_after, w.steps_ns_before) << w.name << ": a faster op never slows the steps";
    }
  }
}

// The steps' paths read the observed times in place of a schedule with
// nothing halved: the two agree on every node of the recorded traces and runs.
TEST(CriticalPath, SchedulingNothingHalvedGivesEveryObservedTime) {
  auto expectObserved = [](const CriticalPathGraph& g) {
    ASSERT_GT(g.nodeCount(), 0u);
    std::vector<int64_t> scheduled, observed;
    g.schedule({}, scheduled);
    g.observedTimes(observed);
    EXPECT_EQ(scheduled, observed);
  };
  for (const char* name : {"linear_eager.json.gz", "mlp_eager.json.gz", "multistream_memcpy.json.gz"}) {
    SCOPED_TRACE(name);
    expectObserved(CriticalPathGraph(importChromeTrace(test::fixture(name)), {}));
  }
  for (const auto& dir : {test::multirankFixtureDir(), test::ncclFuselabFixtureDir()}) {
    SCOPED_TRACE(dir.string());
    const fuselab::Run run = loadRun(traceFilesIn(dir));
    const RunAnalysis a = analyzeRun(run);
    const MergedRun merged = mergeRun(run, a.alignment.offsets_ns);
    expectObserved(CriticalPathGraph(*merged.trace, collectiveDependencies(a, merged)));
  }
}

}  // namespace
}  // namespace fuselab
