// A recorded step whose CUDA allocation the caching allocator refuses: the
// capture keeps the steps before it and that step up to the failed request,
// whose [OutOfMemory] event (bytes asked for, the totals then) is in the
// trace and in the analysis' memory section, named on the op that asked.
#include <gtest/gtest.h>

#include <ATen/Context.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>

#include <vector>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/single/AnalysisSteps.h"
#include "profiling/capture/Capture.h"
#include "profiling/trace/MemoryEvents.h"

namespace fuselab {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (!at::hasCUDA()) GTEST_SKIP() << "no CUDA GPU: the caching allocator's out-of-memory needs one (run on the GPU machine)"

constexpr int64_t kChunk = int64_t(256) << 20;  // what each forward allocates and holds until synchronize

// The allocator's memory fraction for the test, back to all of it after.
struct MemoryFraction {
  explicit MemoryFraction(double f) { c10::cuda::CUDACachingAllocator::setMemoryFraction(f, 0); }
  ~MemoryFraction() { c10::cuda::CUDACachingAllocator::setMemoryFraction(1.0, 0); }
};

TEST(CaptureOutOfMemoryGpu, TheRefusedRequestEndsTheTraceWithItsOutOfMemoryEvent) {
  SKIP_WITHOUT_GPU();
  const auto cuda = at::TensorOptions().device(at::kCUDA).dtype(at::kByte);
  (void)at::empty({1}, cuda);
  c10::cuda::CUDACachingAllocator::emptyCache();
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  // Room for four chunks and a half: the fifth forward of the steps fails.
  const MemoryFraction fraction((4.5 * double(kChunk)) / double(total_bytes));
  std::vector<at::Tensor> held;
  CaptureTarget target;
  target.region_label = "oom_fwd";
  target.forward = [&] { held.push_back(at::empty({kChunk}, cuda)); };
  target.synchronize = [&] { held.clear(); };
  CaptureOptions options;
  options.warmup = 0;  // forwards are held until the steps' final synchronize
  options.steps = 8;
  const CaptureResult r = runCapture(target, options);

  EXPECT_FALSE(r.cancelled);
  EXPECT_EQ(r.steps_done, 4);
  EXPECT_NE(r.out_of_memory.find("out of memory"), std::string::npos) << r.out_of_memory;
  EXPECT_FALSE(r.observer_effect.has_value());
  EXPECT_EQ(computeSteps(r.trace).size(), 5u);

  const MemoryEvents m = readMemoryEvents(r.trace);
  ASSERT_EQ(m.out_of_memory.size(), 1u);
  const OutOfMemoryEvent& oom = m.out_of_memory.front();
  EXPECT_EQ(oom.bytes, kChunk);
  EXPECT_GE(oom.total_allocated, 4 * kChunk);
  EXPECT_NE(oom.track, UINT32_MAX);  // on the thread that asked

  const TraceAnalysis a = analyzeTrace(r.trace);
  const DeviceMemory* d = nullptr;
  for (const DeviceMemory& dm : a.memory.devices)
    if (dm.device == "cuda:0") d = &dm;
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->out_of_memory.size(), 1u);
  ASSERT_TRUE(d->out_of_memory.front().op.has_value());
  EXPECT_EQ(r.trace.name(*d->out_of_memory.front().op), "aten::empty");
  EXPECT_EQ(d->peak_allocated_bytes, oom.total_allocated);
}

}  // namespace
}  // namespace fuselab
