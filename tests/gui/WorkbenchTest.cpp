// The workbench panel and its captures (CPU device, so it runs everywhere),
// and the prompt that keeps an unexported live capture from being dropped.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "app/capture/CaptureModule.h"
#include "app/gui/GlfwWindow.h"
#include "app/gui/OffscreenRenderer.h"
#include "app/gui/Screenshot.h"
#include "app/gui/Workbench.h"
#include "app/gui/Workspace.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/capture_api/WorkloadCatalog.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

size_t countEvents(const Trace& t, std::string_view name) {
  size_t n = 0;
  for (size_t k = 0; k < t.tracks.size(); ++k)
    for (size_t i = 0; i < t.tracks[k].size(); ++i) n += t.name(EventRef{uint32_t(k), uint32_t(i)}) == name;
  return n;
}

// Runs `workload` on the CPU from the panel and waits until the workspace
// holds its result (or the run's error). false: the panel does not offer it.
bool runOnCpu(Workbench& bench, Workspace& ws, const std::string& workload) {
  if (!bench.panel().selectWorkload(workload)) return false;
  bench.panel().setDevice(Device::Cpu);
  bench.run();
  bench.waitIdle();
  ws.waitIdle();
  return true;
}

TEST(Workbench, RunCapturesTheChosenWorkloadAndShowsIt) {
  Workspace ws;
  Workbench bench(ws);
  ASSERT_TRUE(runOnCpu(bench, ws, "linear"));
  ASSERT_TRUE(ws.trace()) << bench.status().message << ws.error();
  EXPECT_FALSE(bench.status().message_is_error) << bench.status().message;
  EXPECT_EQ(ws.traceLabel().rfind("live: ", 0), 0u) << ws.traceLabel();
  EXPECT_EQ(countEvents(*ws.trace(), "aten::linear"), 3u) << "3 steps of one nn.Linear each";
  EXPECT_EQ(findProfilerSteps(*ws.trace()).size(), 3u);

  // The panel draws (sliders, toggles, progress) into a real frame.
  GlfwWindow context(GlfwWindow::Options{64, 64, "workbench test", false});
  OffscreenFrame frame;
  frame.width = 1200;
  frame.height = 800;
  RgbaImage image = renderOffscreen(ws, frame);
  EXPECT_EQ(image.width, 1200);
  writePng(test::scratchDir("Workbench.Run") / "workbench.png", image);  // to look at
}

// A first capture on a machine without a GPU: every workload that has a CPU
// version starts from its CPU defaults and is captured in seconds (119 s for
// the MLP at the GPU's 8192 bf16 tokens on a 2-core box). The bound is
// generous for a loaded CI machine; the times are printed for the notes.
TEST(Workbench, TheDefaultCpuCaptureOfEveryWorkloadTakesSeconds) {
  Workspace ws;
  Workbench bench(ws);
  for (const WorkloadInfo& info : workloadCatalog()) {
    if (info.cuda_only) continue;
    ASSERT_TRUE(bench.panel().selectWorkload(info.name));
    bench.panel().setDevice(Device::Cpu);
    const WorkloadParams& p = bench.panel().run().params;
    EXPECT_EQ(p.dtype, DType::FP32) << info.name;
    EXPECT_EQ(p.batch * p.seq, info.cpu_defaults.batch * info.cpu_defaults.seq) << info.name;
    const auto start = std::chrono::steady_clock::now();
    bench.run();
    bench.waitIdle();
    ws.waitIdle();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_FALSE(bench.status().message_is_error) << info.name << ": " << bench.status().message;
    std::printf("default CPU capture of %s: %.2f s\n", info.name.c_str(), seconds);
    EXPECT_LT(seconds, 60) << info.name;
  }
}

TEST(Workbench, SwitchingDeviceMovesToItsSizesUnlessTheUserChangedThem) {
  Workspace ws;
  Workbench bench(ws);
  ui::WorkbenchPanel& panel = bench.panel();
  const WorkloadInfo& mlp = catalogWorkload("mlp");
  ASSERT_TRUE(panel.selectWorkload("mlp"));
  panel.setDevice(Device::Cuda);
  EXPECT_EQ(panel.run().params.batch, mlp.defaults.batch);
  panel.setDevice(Device::Cpu);
  EXPECT_EQ(panel.run().params.batch, mlp.cpu_defaults.batch);
  EXPECT_EQ(panel.run().params.seq, mlp.cpu_defaults.seq);
  EXPECT_EQ(panel.run().params.dtype, DType::FP32);
  panel.setDevice(Device::Cuda);
  EXPECT_EQ(panel.run().params.seq, mlp.defaults.seq);
  EXPECT_EQ(panel.run().params.dtype, mlp.defaults.dtype);
  // Back on the CPU: what the user left there.
  panel.setDevice(Device::Cpu);
  ASSERT_TRUE(panel.selectWorkload("linear"));
  ASSERT_TRUE(panel.selectWorkload("mlp"));
  EXPECT_EQ(panel.run().params.device, Device::Cpu);
  EXPECT_EQ(panel.run().params.seq, mlp.cpu_defaults.seq);
}

TEST(Workbench, WithoutTheCaptureModuleRunSaysWhatIsMissing) {
  if (captureModuleLoaded()) GTEST_SKIP() << "this process loaded the module already: run the test alone (ctest does)";
  const auto missing = test::scratchDir("Workbench.NoModule") / kCaptureModuleFile;
  ::setenv(kCaptureModuleEnv, missing.c_str(), 1);
  Workspace ws;
  Workbench bench(ws);  // the window opens without the module
  const bool offered = runOnCpu(bench, ws, "linear");
  ::unsetenv(kCaptureModuleEnv);
  ASSERT_TRUE(offered);
  EXPECT_TRUE(bench.status().message_is_error);
  EXPECT_NE(bench.status().message.find("capture module not found"), std::string::npos) << bench.status().message;
  EXPECT_NE(bench.status().message.find(missing.string()), std::string::npos) << bench.status().message;
  EXPECT_FALSE(ws.trace());
  EXPECT_FALSE(captureModuleLoaded());
}

TEST(Workbench, BadSizesGiveAMessageNotACrash) {
  Workspace ws;
  Workbench bench(ws);
  ASSERT_TRUE(runOnCpu(bench, ws, "fused_mlp"));  // the fused MLP has no CPU version
  EXPECT_TRUE(bench.status().message_is_error);
  EXPECT_NE(bench.status().message.find("CUDA"), std::string::npos) << bench.status().message;
  EXPECT_FALSE(ws.trace());
}

TEST(Workbench, AnUnexportedCaptureIsNotDroppedWithoutAsking) {
  Workspace ws;
  Workbench bench(ws);
  ASSERT_TRUE(runOnCpu(bench, ws, "matmul_add"));
  const auto capture = ws.trace();
  ASSERT_TRUE(capture) << bench.status().message;
  EXPECT_TRUE(ws.hasUnsavedCapture());

  const std::string other = test::fixture("linear_eager.json.gz").string();
  ws.requestOpen(other);
  ws.waitIdle();
  EXPECT_TRUE(ws.discardPromptOpen());
  EXPECT_EQ(ws.trace(), capture) << "nothing opens before the user answers";
  ws.answerDiscardPrompt(false);
  EXPECT_FALSE(ws.discardPromptOpen());
  EXPECT_EQ(ws.trace(), capture);

  ws.requestQuit();
  EXPECT_TRUE(ws.discardPromptOpen());
  EXPECT_FALSE(ws.quitRequested());
  ws.answerDiscardPrompt(false);
  EXPECT_FALSE(ws.quitRequested());

  ws.requestOpen(other);
  ws.answerDiscardPrompt(true);
  ws.waitIdle();
  EXPECT_NE(ws.trace(), capture);
  EXPECT_EQ(ws.traceLabel(), "linear_eager.json.gz");
  EXPECT_FALSE(ws.hasUnsavedCapture());
  ws.requestQuit();  // a file from disk: nothing to lose, no question
  EXPECT_TRUE(ws.quitRequested());
}

}  // namespace
}  // namespace fuselab
