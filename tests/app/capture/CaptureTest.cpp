// Live captures on the CPU (`--device cpu`): the CPU chains each workload
// dispatches, the ProfilerStep#k steps around the labelled region, an empty
// GPU side; cancellation, errors, the worker thread and the command line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <stdexcept>

#include "app/capture/CaptureWorker.h"
#include "app/cli/Commands.h"
#include "app/capture/WorkloadCapture.h"
#include "kernels/WorkloadRegistry.h"
#include "profiling/capture_api/CapturePlan.h"
#include "profiling/capture/Capture.h"
#include "profiling/capture/DispatchCollector.h"
#include "tests/app/CliRun.h"
#include "tests/support/TestPaths.h"

#include "profiling/trace/ChromeTraceImport.h"

#include <ATen/Context.h>

namespace fuselab {
namespace {

struct Ev {
  std::string name;
  Category category;
  int64_t start = 0, end = 0;
  uint16_t depth = 0;
  std::string args;
};

// Events of the CPU track that holds the ProfilerStep annotations.
std::vector<Ev> stepTrackEvents(const Trace& trace) {
  for (const auto& t : trace.tracks) {
    std::vector<Ev> evs;
    bool has_step = false;
    for (size_t i = 0; i < t.size(); ++i) {
      Ev e{std::string(trace.strings.get(t.name_id[i])), t.category[i], t.start_ns[i], t.end_ns(i), t.depth[i],
           std::string(trace.argsJson(t.args[i]))};
      has_step |= e.name.rfind("ProfilerStep#", 0) == 0;
      evs.push_back(std::move(e));
    }
    if (has_step) return evs;
  }
  return {};
}

std::vector<Ev> within(const std::vector<Ev>& evs, const Ev& outer, const std::string& name) {
  std::vector<Ev> out;
  for (const auto& e : evs)
    if (e.name == name && e.start >= outer.start && e.end <= outer.end && e.depth > outer.depth) out.push_back(e);
  return out;
}

std::vector<Ev> steps(const std::vector<Ev>& evs) {
  std::vector<Ev> out;
  for (const auto& e : evs)
    if (e.name.rfind("ProfilerStep#", 0) == 0) out.push_back(e);
  return out;
}

WorkloadParams cpuParams(const std::string& workload) {
  WorkloadParams p;
  p.workload = workload;
  p.device = Device::Cpu;
  p.dtype = DType::FP32;
  return p;
}

CaptureOptions threeSteps() {
  CaptureOptions o;
  o.warmup = 2;
  o.steps = 3;
  return o;
}

void expectNoGpuSide(const Trace& trace) {
  for (const auto& t : trace.tracks) {
    EXPECT_NE(t.kind, TrackKind::Gpu);
    for (auto c : t.category) {
      EXPECT_FALSE(isGpuWork(c) || isLaunchCall(c) || c == Category::Sync || c == Category::GpuAnnotation)
          << categoryName(c);
    }
  }
  EXPECT_TRUE(trace.launches().empty());
}

// Each step is one ProfilerStep#k (k counts iterations, warmup included)
// wrapping exactly one region annotation; returns the regions.
std::vector<Ev> checkSteps(const std::vector<Ev>& evs, const std::string& region, int warmup, int n) {
  auto st = steps(evs);
  EXPECT_EQ(st.size(), size_t(n));
  std::vector<Ev> regions;
  for (size_t k = 0; k < st.size(); ++k) {
    EXPECT_EQ(st[k].name, "ProfilerStep#" + std::to_string(warmup + int(k)));
    EXPECT_EQ(st[k].category, Category::UserAnnotation);
    auto r = within(evs, st[k], region);
    EXPECT_EQ(r.size(), 1u) << st[k].name;
    if (r.size() == 1) {
      EXPECT_EQ(r[0].category, Category::UserAnnotation);
      EXPECT_EQ(r[0].depth, st[k].depth + 1);
      regions.push_back(r[0]);
    }
  }
  return regions;
}

TEST(CaptureCpu, LinearDispatchesLinearThenTransposeAndAddmm) {
  WorkloadParams p = cpuParams("linear");
  p.batch = 8;
  p.dim = 4;
  p.out = 6;
  CaptureResult r = captureWorkload(p, threeSteps());
  EXPECT_FALSE(r.cancelled);
  EXPECT_FALSE(r.gpu_captured);
  EXPECT_EQ(r.steps_done, 3);
  EXPECT_TRUE(r.messages.empty());
  auto evs = stepTrackEvents(r.trace);
  auto regions = checkSteps(evs, "linear_fwd", 2, 3);
  ASSERT_EQ(regions.size(), 3u);
  for (const auto& region : regions) {
    auto linear = within(evs, region, "aten::linear");
    ASSERT_EQ(linear.size(), 1u);
    EXPECT_EQ(linear[0].category, Category::CpuOp);
    auto t = within(evs, linear[0], "aten::t");
    auto addmm = within(evs, linear[0], "aten::addmm");
    ASSERT_EQ(t.size(), 1u);
    ASSERT_EQ(addmm.size(), 1u);
    EXPECT_EQ(t[0].depth, linear[0].depth + 1);
    EXPECT_EQ(addmm[0].depth, linear[0].depth + 1);
    EXPECT_LE(t[0].end, addmm[0].start);
    // Input dims recorded by default: addmm(bias [6], x [8, 4], W^T [4, 6]).
    ASSERT_FALSE(addmm[0].args.empty());
    auto dims = nlohmann::json::parse(addmm[0].args)["Input Dims"];
    EXPECT_EQ(dims[0], nlohmann::json::parse("[6]"));
    EXPECT_EQ(dims[1], nlohmann::json::parse("[8,4]"));
    EXPECT_EQ(dims[2], nlohmann::json::parse("[4,6]"));
  }
  expectNoGpuSide(r.trace);
  EXPECT_EQ(r.trace.meta.source, "live capture");
  EXPECT_NE(r.trace.meta.trace_name.find("nn.Linear(4, 6"), std::string::npos) << r.trace.meta.trace_name;
  bool has_params = false;
  for (const auto& [key, value] : r.trace.meta.extra_fields)
    if (key == "fuselabWorkload") {
      auto j = nlohmann::json::parse(value);
      EXPECT_EQ(j["workload"], "linear");
      EXPECT_EQ(j["out"], 6);
      has_params = true;
    }
  EXPECT_TRUE(has_params);
}

TEST(CaptureCpu, GegluMlpHasThreeLinearsGeluAndMulPerStep) {
  WorkloadParams p = cpuParams("mlp");
  p.batch = 2;
  p.seq = 4;
  p.dim = 16;
  p.hidden = 32;
  CaptureResult r = captureWorkload(p, threeSteps());
  auto evs = stepTrackEvents(r.trace);
  auto regions = checkSteps(evs, "mlp_fwd", 2, 3);
  ASSERT_EQ(regions.size(), 3u);
  for (const auto& region : regions) {
    EXPECT_EQ(within(evs, region, "aten::linear").size(), 3u);
    EXPECT_EQ(within(evs, region, "aten::gelu").size(), 1u);
    EXPECT_EQ(within(evs, region, "aten::mul").size(), 1u);
    // Each linear without bias goes through matmul -> mm on a 3-D input.
    for (const auto& l : within(evs, region, "aten::linear")) EXPECT_EQ(within(evs, l, "aten::mm").size(), 1u);
  }
  expectNoGpuSide(r.trace);
}

TEST(CaptureCpu, StackedMlpHasThreeLinearsAndTwoGelus) {
  WorkloadParams p = cpuParams("mlp");
  p.variant = "stacked";
  p.batch = 2;
  p.seq = 4;
  p.dim = 16;
  p.hidden = 32;
  CaptureResult r = captureWorkload(p, threeSteps());
  auto evs = stepTrackEvents(r.trace);
  auto regions = checkSteps(evs, "mlp_fwd", 2, 3);
  for (const auto& region : regions) {
    EXPECT_EQ(within(evs, region, "aten::linear").size(), 3u);
    EXPECT_EQ(within(evs, region, "aten::gelu").size(), 2u);
    EXPECT_EQ(within(evs, region, "aten::mul").size(), 0u);
  }
}

TEST(CaptureCpu, MatmulAddHasMatmulOverMmThenAdd) {
  WorkloadParams p = cpuParams("matmul_add");
  p.dim = 16;
  CaptureResult r = captureWorkload(p, threeSteps());
  auto evs = stepTrackEvents(r.trace);
  auto regions = checkSteps(evs, "matmul_add", 2, 3);
  ASSERT_EQ(regions.size(), 3u);
  for (const auto& region : regions) {
    auto matmul = within(evs, region, "aten::matmul");
    auto add = within(evs, region, "aten::add");
    ASSERT_EQ(matmul.size(), 1u);
    ASSERT_EQ(add.size(), 1u);
    EXPECT_EQ(within(evs, matmul[0], "aten::mm").size(), 1u);
    EXPECT_LE(matmul[0].end, add[0].start);
  }
  expectNoGpuSide(r.trace);
}

CaptureTarget countingTarget(int* forwards, int throw_at = -1) {
  CaptureTarget t;
  t.region_label = "region";
  t.forward = [forwards, throw_at] {
    if (++*forwards == throw_at) throw std::runtime_error("forward failed");
  };
  t.synchronize = [] {};
  return t;
}

TEST(CaptureRun, CancelledBeforeTheStepsGivesNoTrace) {
  int forwards = 0;
  CaptureProgress progress;
  progress.cancel = true;
  CaptureResult r = runCapture(countingTarget(&forwards), threeSteps(), &progress);
  EXPECT_TRUE(r.cancelled);
  EXPECT_EQ(r.steps_done, 0);
  EXPECT_EQ(forwards, 0);
  EXPECT_EQ(r.trace.eventCount(), 0u);
  EXPECT_EQ(progress.phase(), "cancelled");
}

TEST(CaptureRun, ReportsProgressToTheEnd) {
  int forwards = 0;
  CaptureProgress progress;
  CaptureResult r = runCapture(countingTarget(&forwards), threeSteps(), &progress);
  // 2 warm-ups + 3 timed without the profiler (the observer effect) + 6 of
  // the profiler's own warm-up + 3 steps + two blocks of 3 timed without the
  // profiler again: the plan the estimate counts.
  EXPECT_EQ(forwards, 20);
  EXPECT_EQ(forwards, planCapture(threeSteps()).totalForwards());
  ASSERT_TRUE(r.observer_effect.has_value());
  EXPECT_EQ(r.observer_effect->unprofiled_steps, 9);
  EXPECT_EQ(r.observer_effect->unprofiled_block_ns.size(), 3u);
  EXPECT_EQ(r.observer_effect->profiled_step_ns.size(), 4u);  // the last profiler warm-up and the steps
  EXPECT_GT(progress.forward_s.load(), 0);  // the warm-ups were timed for the estimate
  EXPECT_GT(progress.estimated_s.load(), 0);
  EXPECT_DOUBLE_EQ(progress.fraction.load(), 1.0);
  EXPECT_EQ(progress.phase(), "done");
  EXPECT_GT(r.steps_wall_ns, 0);
  EXPECT_EQ(steps(stepTrackEvents(r.trace)).size(), 3u);
}

TEST(CaptureRun, NoWarmupRecordsTheColdStartWithNoProfilerWarmup) {
  int forwards = 0;
  CaptureOptions o = threeSteps();
  o.warmup = 0;
  CaptureResult r = runCapture(countingTarget(&forwards), o, nullptr);
  // 3 steps, the first one cold, then two blocks of 3 timed without the profiler.
  EXPECT_EQ(forwards, 9);
  EXPECT_EQ(forwards, planCapture(o).totalForwards());
  ASSERT_TRUE(r.observer_effect.has_value());
  EXPECT_EQ(r.observer_effect->unprofiled_steps, 6);
  EXPECT_EQ(r.observer_effect->profiled_step_ns.size(), 3u);
  EXPECT_EQ(steps(stepTrackEvents(r.trace)).size(), 3u);
}

TEST(CaptureRun, BadOptionsAreRejectedWithTheRange) {
  int forwards = 0;
  CaptureOptions o;
  o.steps = 0;
  try {
    runCapture(countingTarget(&forwards), o);
    ADD_FAILURE() << "steps = 0 accepted";
  } catch (const CaptureError& e) {
    EXPECT_NE(std::string(e.what()).find("allowed 1 to 10000"), std::string::npos) << e.what();
  }
  o.steps = 1;
  o.warmup = -1;
  EXPECT_THROW(runCapture(countingTarget(&forwards), o), CaptureError);
}

TEST(CaptureRun, AFailingForwardStopsTheCollectors) {
  int forwards = 0;
  EXPECT_THROW(runCapture(countingTarget(&forwards, 4), threeSteps()), std::runtime_error);
  DispatchCollector next;  // would fail if the capture's collector were still recording
  std::string err;
  EXPECT_TRUE(next.start({}, &err)) << err;
}

TEST(CaptureWorker, RunsACaptureOnItsOwnThread) {
  CaptureWorker worker;
  CaptureRequest req;
  req.params = cpuParams("linear");
  req.params.batch = 8;
  req.params.dim = 4;
  req.params.out = 6;
  req.options = threeSteps();
  uint64_t id = worker.submit(req);
  worker.waitIdle();
  auto r = worker.poll();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->id, id);
  ASSERT_TRUE(r->ok()) << r->error;
  EXPECT_FALSE(worker.poll().has_value());
  EXPECT_FALSE(worker.status().busy);
  // The CPU track is the worker's thread, named after it.
  bool named = false;
  for (const auto& t : r->trace->tracks)
    if (std::string(r->trace->strings.get(t.thread_name_id)).find("fuselab-capture") != std::string::npos) named = true;
  EXPECT_TRUE(named);
  EXPECT_EQ(steps(stepTrackEvents(*r->trace)).size(), 3u);
}

TEST(CaptureWorker, ReportsBadParameters) {
  CaptureWorker worker;
  CaptureRequest req;
  req.params = cpuParams("mlp");
  req.params.batch = 0;
  worker.submit(req);
  worker.waitIdle();
  auto r = worker.poll();
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->ok());
  EXPECT_NE(r->error.find("batch = 0"), std::string::npos) << r->error;
  EXPECT_FALSE(r->out_of_memory);
}

TEST(CaptureWorker, CudaWithoutGpuSaysSoWithoutACommandLineFlag) {
  if (at::hasCUDA()) GTEST_SKIP() << "a CUDA GPU is present: the no-GPU result cannot be checked here";
  CaptureWorker worker;
  CaptureRequest req;
  req.params = cpuParams("linear");
  req.params.device = Device::Cuda;
  worker.submit(req);
  worker.waitIdle();
  auto r = worker.poll();
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->ok());
  EXPECT_TRUE(r->no_gpu);  // the window offers the CPU on this flag
  EXPECT_EQ(r->error.find("--device"), std::string::npos) << r->error;
}

TEST(CaptureWorker, CancelStopsALongCapture) {
  CaptureWorker worker;
  CaptureRequest req;
  req.params = cpuParams("linear");
  req.params.batch = 8;
  req.params.dim = 4;
  req.params.out = 6;
  req.options.warmup = 10000;
  req.options.steps = 10000;
  worker.submit(req);
  worker.cancel();
  worker.waitIdle();
  auto r = worker.poll();
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->cancelled);
  EXPECT_FALSE(r->ok());
}

// `fuselab capture ARGS...` in this process.
test::CliRun runCli(std::vector<std::string> args) {
  args.insert(args.begin(), "capture");
  return test::runFuselab(std::move(args));
}

TEST(CaptureCommand, BadValuesExitWithTwoAndTheRange) {
  auto r = runCli({"--workload", "mlp", "--batch", "0", "--device", "cpu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--batch must be an integer from 1 to 1048576, got '0'"), std::string::npos) << r.err;

  r = runCli({"--hidden", "-3", "--device", "cpu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--hidden must be an integer"), std::string::npos) << r.err;

  r = runCli({"--dim", "abc", "--device", "cpu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("got 'abc'"), std::string::npos) << r.err;

  r = runCli({"--dtype", "int8", "--device", "cpu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown dtype 'int8'"), std::string::npos) << r.err;

  r = runCli({"--steps", "0", "--device", "cpu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--steps must be an integer from 1 to 10000"), std::string::npos) << r.err;

  r = runCli({"--workload", "conv"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--workload must be one of"), std::string::npos) << r.err;

  r = runCli({"--variant", "wide", "--device", "cpu", "--batch", "1", "--seq", "1", "--dim", "4", "--hidden", "4"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown variant 'wide'"), std::string::npos) << r.err;
}

TEST(CaptureCommand, CudaWithoutGpuExitsWithTwo) {
  if (at::hasCUDA()) GTEST_SKIP() << "a CUDA GPU is present: the no-GPU message cannot be checked here";
  auto r = runCli({"--workload", "linear"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no CUDA GPU available on this machine: use --device cpu"), std::string::npos) << r.err;
}

TEST(CaptureCommand, CapturesOnTheCpuAndPrintsTheSummary) {
  auto r = runCli({"--workload", "linear", "--batch", "8", "--dim", "4", "--out-features", "6", "--dtype", "fp32",
                       "--device", "cpu", "--steps", "2", "--warmup", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("captured 2 steps of linear"), std::string::npos) << r.out;
  EXPECT_GT(r.out.size(), std::string("captured 2 steps of linear").size() + 40) << "no analysis summary: " << r.out;
}

TEST(CaptureCommand, JsonStdoutIsTheJsonAlone) {
  auto path = test::scratchDir("CaptureCommandJson") / "linear.json.gz";
  auto r = runCli({"--workload", "linear", "--batch", "8", "--dim", "4", "--out-features", "6", "--dtype", "fp32",
                   "--device", "cpu", "--steps", "2", "--warmup", "1", "--out", path.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << r.out;
  EXPECT_TRUE(j.contains("verdict")) << r.out;
  // What happened is still said, on stderr.
  EXPECT_NE(r.err.find("captured 2 steps of linear"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("wrote " + path.string()), std::string::npos) << r.err;
}

TEST(CaptureCommand, ReportsTheObserverEffectAndKeepsItInTheTrace) {
  auto path = test::scratchDir("CaptureCommandObserver") / "linear.json.gz";
  auto r = runCli({"--workload", "linear", "--batch", "8", "--dim", "4", "--out-features", "6", "--dtype", "fp32",
                   "--device", "cpu", "--steps", "4", "--warmup", "3", "--out", path.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json effect = nlohmann::json::parse(r.out)["observer_effect"];
  ASSERT_TRUE(effect.is_object()) << r.out;
  const double unprofiled = effect["unprofiled_ns_per_step"], profiled = effect["profiled_ns_per_step"];
  EXPECT_GT(unprofiled, 0);
  EXPECT_GT(profiled, 0);
  EXPECT_NEAR(effect["ratio"].get<double>(), profiled / unprofiled, 1e-3 * profiled / unprofiled);

  // The file keeps it: analyze of the written trace reports the same figures.
  auto again = test::runFuselab({"analyze", path.string(), "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["observer_effect"], effect);
  auto text = test::runFuselab({"analyze", path.string()});
  EXPECT_NE(text.out.find("Observer effect: this capture ran"), std::string::npos) << text.out;
}

TEST(CaptureCommand, WritesATraceThatImportsBack) {
  auto path = test::scratchDir("CaptureCommandExport") / "linear.json.gz";
  auto r = runCli({"--workload", "linear", "--batch", "8", "--dim", "4", "--out-features", "6", "--dtype", "fp32",
                       "--device", "cpu", "--steps", "2", "--warmup", "1", "--out", path.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Trace back = importChromeTrace(path);
  auto evs = stepTrackEvents(back);
  auto regions = checkSteps(evs, "linear_fwd", 1, 2);
  for (const auto& region : regions) EXPECT_EQ(within(evs, region, "aten::addmm").size(), 1u);
}

}  // namespace
}  // namespace fuselab
