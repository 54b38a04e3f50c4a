// capture --counters on a CUDA GPU (ctest label "gpu"; skips without one, or
// where this user may not read GPU counters): the GeGLU MLP at 8192 tokens,
// bf16. The down projection's measured DRAM bytes are within a sane factor
// of the model's bytes (shapes); elementwise kernels keep the tensor pipe idle.
#include <gtest/gtest.h>

#include <ATen/Context.h>

#include <iostream>
#include <map>

#include "app/capture/WorkloadCapture.h"
#include "kernels/WorkloadRegistry.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/capture/KernelCounterMatch.h"
#include "profiling/trace/MeasuredCounters.h"
#include "tests/support/CudaWorkloads.h"

namespace fuselab {
namespace {

constexpr std::string_view kUnavailable = "hardware counters unavailable: ";

TEST(CaptureCountersGpu, MlpDownGemmBytesNearTheModelAndElementwiseTensorIdle) {
  if (!at::hasCUDA()) GTEST_SKIP() << "no CUDA GPU: counters are read on one (run on the GPU machine)";
  WorkloadParams p = test::cudaBf16Defaults("mlp");
  p.batch = 64;
  p.seq = 128;  // 8192 tokens
  CaptureOptions o;
  o.steps = 3;
  o.counters = true;
  const CaptureResult r = captureWorkload(p, o);
  ASSERT_TRUE(r.gpu_captured);
  for (const std::string& m : r.messages) {
    std::cout << "[capture] " << m << "\n";
    if (m.starts_with(kUnavailable) && m.find("INSUFFICIENT_PRIVILEGES") != std::string::npos)
      GTEST_SKIP() << "this user may not read GPU counters: " << m;
    ASSERT_FALSE(m.starts_with(kUnavailable)) << m;
  }

  const TraceAnalysis a = analyzeTrace(r.trace);
  std::map<std::pair<uint32_t, uint32_t>, Work> model;
  for (const GpuOpWork& w : a.roofline.work)
    if (w.work) model[{w.op.track, w.op.index}] = *w.work;
  const std::vector<EventRef> kernels = lastStepKernels(r.trace);
  ASSERT_FALSE(kernels.empty());
  std::optional<EventRef> down;  // the last GEMM-like kernel of the step
  int elementwise = 0;
  for (EventRef k : kernels) {
    const MeasuredCounters c = measuredCountersOf(r.trace, k);
    const auto it = model.find({k.track, k.index});
    std::cout << "[counters] " << r.trace.name(k).substr(0, 80) << ": measured "
              << (c.dram_bytes ? std::to_string(*c.dram_bytes) : "-") << " B, tensor "
              << (c.tensor_active_pct ? std::to_string(*c.tensor_active_pct) : "-") << " %, model "
              << (it != model.end() ? std::to_string(it->second.bytes) : "-") << " B\n";
    ASSERT_TRUE(c.dram_bytes) << r.trace.name(k);
    ASSERT_TRUE(c.tensor_active_pct) << r.trace.name(k);
    if (it != model.end() && it->second.flops > 8 * it->second.bytes) down = k;
    if (r.trace.name(k).find("elementwise") != std::string_view::npos) {
      ++elementwise;
      EXPECT_LT(*c.tensor_active_pct, 1.0) << r.trace.name(k);
    }
  }
  EXPECT_GT(elementwise, 0) << "no elementwise kernel in the step";
  ASSERT_TRUE(down) << "no GEMM with a model in the last step";
  const double measured = *measuredCountersOf(r.trace, *down).dram_bytes;
  const double modelled = model.at({down->track, down->index}).bytes;
  std::cout << "[down GEMM] measured/model = " << measured / modelled << "\n";
  EXPECT_GT(measured, 0.5 * modelled);
  EXPECT_LT(measured, 4.0 * modelled);
  EXPECT_GT(*measuredCountersOf(r.trace, *down).tensor_active_pct, 5.0);

  // The analysis carries them per kernel name.
  EXPECT_TRUE(anyMeasuredFigures(a.kernels));
}

}  // namespace
}  // namespace fuselab
