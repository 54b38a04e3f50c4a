// A recorded step that runs out of memory ends the capture there, keeping
// the steps before it and that step up to the failure, and says so. Here the
// target raises LibTorch's out-of-memory error itself on the CPU (its
// allocator has no limit to reach); tests/app/gpu/ makes the
// CUDA caching allocator refuse a real request.
#include <gtest/gtest.h>

#include <ATen/ops/ones.h>
#include <c10/util/Exception.h>

#include <vector>

#include "profiling/capture/Capture.h"
#include "profiling/trace/MemoryEvents.h"

namespace fuselab {
namespace {

size_t profilerSteps(const Trace& trace) {
  size_t n = 0;
  for (const Track& t : trace.tracks)
    for (uint32_t i = 0; i < t.size(); ++i) n += trace.strings.get(t.name_id[i]).starts_with("ProfilerStep#");
  return n;
}

bool anyMessageHas(const CaptureResult& r, const std::string& text) {
  for (const std::string& m : r.messages)
    if (m.find(text) != std::string::npos) return true;
  return false;
}

TEST(CaptureOutOfMemory, AStepOutOfMemoryKeepsTheStepsBeforeItAndSaysSo) {
  int calls = 0;
  std::vector<at::Tensor> held;
  CaptureTarget target;
  target.region_label = "oom_fwd";
  target.forward = [&] {
    held.push_back(at::ones({1 << 16}));  // each step allocates
    if (++calls == 3) TORCH_CHECK_WITH(OutOfMemoryError, false, "test: out of memory at the third forward");
  };
  target.synchronize = [&] { held.clear(); };
  CaptureOptions options;
  options.warmup = 0;  // the first forwards are recorded steps
  options.steps = 5;
  options.gpu = false;
  const CaptureResult r = runCapture(target, options);

  EXPECT_FALSE(r.cancelled);
  EXPECT_EQ(r.steps_done, 2);
  EXPECT_NE(r.out_of_memory.find("test: out of memory at the third forward"), std::string::npos) << r.out_of_memory;
  EXPECT_TRUE(anyMessageHas(r, "step 3 of 5 ran out of memory")) << ::testing::PrintToString(r.messages);
  EXPECT_FALSE(r.observer_effect.has_value());
  // The two steps and the one that failed, as far as it got.
  EXPECT_EQ(profilerSteps(r.trace), 3u);
  const MemoryEvents m = readMemoryEvents(r.trace);
  size_t allocations = 0;
  for (const MemoryEvent& e : m.events) allocations += e.bytes > 0;
  EXPECT_GE(allocations, 3u);
}

TEST(CaptureOutOfMemory, OtherErrorsStillEndTheCapture) {
  CaptureTarget target;
  target.region_label = "bad_fwd";
  target.forward = [] { TORCH_CHECK(false, "test: not a memory error"); };
  target.synchronize = [] {};
  CaptureOptions options;
  options.warmup = 0;
  options.gpu = false;
  EXPECT_THROW(runCapture(target, options), c10::Error);
}

}  // namespace
}  // namespace fuselab
