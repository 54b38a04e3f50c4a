// capture --memory on a CUDA GPU: the caching allocator's reports become
// cuda:0 [memory] events; each step allocates and frees the same; the peak
// equals the allocator's own peak (torch.cuda.max_memory_allocated) over the
// capture; and the stacked MLP at 8192 tokens needs more than the fused one,
// which keeps its [tokens, hidden] intermediates on chip.
#include <gtest/gtest.h>

#include <ATen/Context.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDACachingAllocator.h>

#include <iostream>

#include "app/capture/WorkloadCapture.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/single/AnalysisSteps.h"
#include "profiling/trace/MemoryEvents.h"
#include "tests/support/CudaWorkloads.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TorchProfilerMemory.h"

namespace fuselab {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (!at::hasCUDA()) GTEST_SKIP() << "no CUDA GPU: live GPU captures need one (run on the GPU machine)"

const DeviceMemory* cuda0(const TraceAnalysis& a) {
  for (const DeviceMemory& d : a.memory.devices)
    if (d.device == "cuda:0") return &d;
  return nullptr;
}

struct Captured {
  CaptureResult result;
  int64_t allocator_peak = 0;  // the caching allocator's peak over the capture
};

Captured captureWithPeak(const WorkloadParams& p) {
  namespace alloc = c10::cuda::CUDACachingAllocator;
  (void)at::empty({1}, at::TensorOptions().device(at::kCUDA));  // the allocator exists once CUDA is initialised
  alloc::resetPeakStats(0);
  CaptureOptions o;
  o.warmup = 3;
  o.steps = 3;
  Captured c{captureWorkload(p, o), 0};
  c.allocator_peak = alloc::getDeviceStats(0).allocated_bytes[size_t(c10::CachingAllocator::StatType::AGGREGATE)].peak;
  return c;
}

TEST(CaptureMemoryGpu, StepsAllocateAlikeAndThePeakIsTheAllocators) {
  SKIP_WITHOUT_GPU();
  const Captured c = captureWithPeak(test::cudaBf16Defaults("mlp"));
  std::vector<std::pair<size_t, int64_t>> per_step;  // (allocations, bytes allocated)
  for (const test::StepMemory& s : test::memoryPerStep(c.result.trace, isDeviceMemory))
    per_step.push_back({s.allocations, s.allocated_bytes});
  ASSERT_EQ(per_step.size(), 3u);
  EXPECT_GT(per_step[0].first, 0u);
  EXPECT_EQ(per_step[1], per_step[0]);
  EXPECT_EQ(per_step[2], per_step[0]);
  const TraceAnalysis a = analyzeTrace(c.result.trace);
  const DeviceMemory* d = cuda0(a);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->peak_allocated_bytes, c.allocator_peak);
  ASSERT_TRUE(d->peak_op.has_value());
  std::cout << "mlp (defaults): " << per_step[0].first << " device allocations a step, " << per_step[0].second
            << " bytes; peak " << d->peak_allocated_bytes << " in " << c.result.trace.name(*d->peak_op) << "\n";
}

// The same workload under torch's own profiler (profile_memory, from C++):
// every step's CUDA and CPU allocations and frees are what ours records.
TEST(CaptureMemoryGpu, EachStepRecordsWhatTorchProfilerRecordsOfTheSameWorkload) {
  SKIP_WITHOUT_GPU();
  const WorkloadParams p = test::cudaBf16Defaults("mlp");
  const Captured ours = captureWithPeak(p);
  const Trace torch = test::torchProfilerMemoryTrace(p, /*warmup=*/3, /*steps=*/3,
                                                     test::scratchDir("CaptureMemoryGpuTorch") / "torch.json");
  for (bool (*on_device)(int) : {isDeviceMemory, isCpuMemory}) {
    const std::vector<test::StepMemory> a = test::memoryPerStep(ours.result.trace, on_device);
    const std::vector<test::StepMemory> b = test::memoryPerStep(torch, on_device);
    ASSERT_EQ(a.size(), 3u);
    EXPECT_EQ(a, b) << (on_device == isDeviceMemory ? "cuda" : "cpu");
    std::cout << (on_device == isDeviceMemory ? "cuda" : "cpu") << ", a step: ours " << a.back() << ", torch "
              << b.back() << "\n";
  }
}

TEST(CaptureMemoryGpu, TheFusedMlpNeedsLessThanTheStackedOneAt8192Tokens) {
  SKIP_WITHOUT_GPU();
  WorkloadParams stacked = test::cudaBf16Defaults("mlp");
  stacked.batch = 1;
  stacked.seq = 8192;
  WorkloadParams fused = stacked;
  fused.workload = "fused_mlp";
  const Captured s = captureWithPeak(stacked), f = captureWithPeak(fused);
  const DeviceMemory* ds = cuda0(analyzeTrace(s.result.trace));
  ASSERT_NE(ds, nullptr);
  const int64_t stacked_step = ds->peak_allocated_bytes - ds->start_allocated_bytes;
  // The fused MLP's buffers are made when it is configured: a forward may
  // allocate nothing at all, and then the trace has no cuda:0 events.
  const DeviceMemory* df = cuda0(analyzeTrace(f.result.trace));
  const int64_t fused_step = df ? df->peak_allocated_bytes - df->start_allocated_bytes : 0;
  std::cout << "8192 tokens, peak allocated per forward: stacked " << stacked_step << " bytes, fused " << fused_step
            << " bytes\n";
  // Two [8192, 3072] bf16 intermediates are 100 MB; the fused MLP writes only its output.
  EXPECT_GT(stacked_step, fused_step + 2 * 8192 * 3072 * 2 / 2);
}

}  // namespace
}  // namespace fuselab
