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
#include "tests/support/TestPaths.h"
#include "tests/support/TorchProfilerMemory.h"

namespace fuselab {
namespace {

WorkloadParams cpuMlp() {
  WorkloadParams p;
  p.workload = "mlp";
  p.device = Device::Cpu;
  p.dtype = DType::FP32;
  p.batch = 1;
  p.seq = 64;
  return p;
}

CaptureResult captureMlp(bool memory) {
  CaptureOptions o;
  o.warmup = 2;
  o.steps = 3;
  o.memory = memory;
  return captureWorkload(cpuMlp(), o);
}

TEST(CaptureMemory, EachStepAllocatesAndFreesTheSame) {
  const CaptureResult r = captureMlp(true);
  const MemoryEvents m = readMemoryEvents(r.trace);
  ASSERT_FALSE(m.events.empty());
  for (const std::string& w : m.warnings) EXPECT_EQ(w.find("skipped"), std::string::npos) << w;
  for (const MemoryEvent& e : m.events) {
    EXPECT_TRUE(isCpuMemory(e.device_type));
    EXPECT_NE(e.track, UINT32_MAX);  // on a thread of the trace
  }
  const std::vector<test::StepMemory> per_step = test::memoryPerStep(r.trace, isCpuMemory);
  ASSERT_EQ(per_step.size(), 3u);
  for (const test::StepMemory& s : per_step)
    EXPECT_EQ(s.allocated_bytes, s.freed_bytes) << "a forward frees what it allocates";
  EXPECT_GT(per_step[0].allocations, 0u);
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

// The same workload under torch's own profiler (profile_memory, from C++):
// every step allocates and frees what ours records, count and bytes.
TEST(CaptureMemory, EachStepRecordsWhatTorchProfilerRecordsOfTheSameWorkload) {
  const CaptureResult ours = captureMlp(true);
  const Trace torch = test::torchProfilerMemoryTrace(cpuMlp(), /*warmup=*/2, /*steps=*/3,
                                                     test::scratchDir("CaptureMemoryTorch") / "torch.json");
  const std::vector<test::StepMemory> a = test::memoryPerStep(ours.trace, isCpuMemory);
  const std::vector<test::StepMemory> b = test::memoryPerStep(torch, isCpuMemory);
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_GT(a.back().allocations, 0u);
  EXPECT_EQ(a, b);
}

TEST(CaptureMemory, NoMemoryRecordsNone) {
  const CaptureResult r = captureMlp(false);
  EXPECT_TRUE(readMemoryEvents(r.trace).empty());
}

}  // namespace
}  // namespace fuselab
