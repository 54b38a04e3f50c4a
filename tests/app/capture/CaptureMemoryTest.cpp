// capture --memory on the CPU: LibTorch's allocation reports become
// torch.profiler's [memory] events; each step allocates and frees the same,
// the analysis finds the peak inside an op of a step, and a written trace
// keeps them.
#include <gtest/gtest.h>

#include <algorithm>

#include "app/capture/WorkloadCapture.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/single/AnalysisSteps.h"
#include "profiling/trace/ChromeTraceExport.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/MemoryEvents.h"

namespace fuselab {
namespace {

CaptureResult captureMlp(bool memory) {
  WorkloadParams p;
  p.workload = "mlp";
  p.device = Device::Cpu;
  p.dtype = DType::FP32;
  p.batch = 1;
  p.seq = 64;
  CaptureOptions o;
  o.warmup = 2;
  o.steps = 3;
  o.memory = memory;
  return captureWorkload(p, o);
}

TEST(CaptureMemory, EachStepAllocatesAndFreesTheSame) {
  const CaptureResult r = captureMlp(true);
  const MemoryEvents m = readMemoryEvents(r.trace);
  ASSERT_FALSE(m.events.empty());
  for (const std::string& w : m.warnings) EXPECT_EQ(w.find("skipped"), std::string::npos) << w;
  const std::vector<StepStats> steps = computeSteps(r.trace);
  ASSERT_EQ(steps.size(), 3u);
  std::vector<std::pair<size_t, int64_t>> per_step;  // (allocations, bytes allocated)
  for (const StepStats& s : steps) {
    size_t n = 0;
    int64_t bytes = 0, net = 0;
    for (const MemoryEvent& e : m.events) {
      if (e.ts_ns < s.start_ns || e.ts_ns > s.end_ns) continue;
      EXPECT_TRUE(isCpuMemory(e.device_type));
      EXPECT_NE(e.track, UINT32_MAX);  // on a thread of the trace
      if (e.bytes > 0) ++n, bytes += e.bytes;
      net += e.bytes;
    }
    EXPECT_EQ(net, 0) << s.name << ": a forward frees what it allocates";
    per_step.push_back({n, bytes});
  }
  EXPECT_GT(per_step[0].first, 0u);
  EXPECT_EQ(per_step[1], per_step[0]);
  EXPECT_EQ(per_step[2], per_step[0]);

  const TraceAnalysis a = analyzeTrace(r.trace);
  ASSERT_EQ(a.memory.devices.size(), 1u);
  int64_t largest = 0;
  for (const MemoryEvent& e : m.events) largest = std::max(largest, e.total_allocated);
  EXPECT_EQ(a.memory.devices[0].peak_allocated_bytes, largest);
  ASSERT_TRUE(a.memory.devices[0].peak_op.has_value());
  EXPECT_TRUE(profilerStepIndex(r.trace.name(a.memory.devices[0].peak_stack.front())).has_value());

  const Trace back = importChromeTraceFromBuffer(exportChromeTraceToString(r.trace), "back");
  EXPECT_EQ(readMemoryEvents(back).events.size(), m.events.size());
  EXPECT_EQ(analyzeTrace(back).memory.devices[0].peak_ns, a.memory.devices[0].peak_ns);
}

TEST(CaptureMemory, NoMemoryRecordsNone) {
  const CaptureResult r = captureMlp(false);
  EXPECT_TRUE(readMemoryEvents(r.trace).empty());
}

}  // namespace
}  // namespace fuselab
