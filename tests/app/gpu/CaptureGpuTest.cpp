// Live captures on a CUDA GPU (ctest label "gpu"; they skip without one):
// kernel counts per step, launch -> kernel flows on one clock, views that
// launch nothing, CUDA-graph replays, and CUDA calls recorded through CUPTI
// callbacks giving the same steps as the activity kinds.
#include <gtest/gtest.h>

#include <ATen/Context.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <set>

#include "app/capture/WorkloadCapture.h"
#include "kernels/WorkloadRegistry.h"

#include "profiling/trace/ChromeTraceExport.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/CudaWorkloads.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (!at::hasCUDA()) GTEST_SKIP() << "no CUDA GPU: live GPU captures need one (run on the GPU machine)"

WorkloadParams defaults(const std::string& name) { return test::cudaBf16Defaults(name); }

CaptureResult capture(const WorkloadParams& p, CuptiApiSource api_source = CaptureOptions{}.cupti_api_source) {
  CaptureOptions o;
  o.warmup = 3;
  o.steps = 3;
  o.cupti_api_source = api_source;
  CaptureResult r = captureWorkload(p, o);
  EXPECT_TRUE(r.gpu_captured) << "CUPTI did not record: "
                              << (r.messages.empty() ? std::string("no message") : r.messages.front());
  return r;
}

struct Interval {
  int64_t start, end;
  bool contains(int64_t t) const { return t >= start && t <= end; }
};

// CPU events named `name` on the track that holds the ProfilerStep annotations.
struct StepTrack {
  uint32_t track = 0;
  std::vector<Interval> steps;
};

StepTrack stepTrack(const Trace& trace) {
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    StepTrack s{ti, {}};
    for (size_t i = 0; i < t.size(); ++i)
      if (trace.strings.get(t.name_id[i]).rfind("ProfilerStep#", 0) == 0) s.steps.push_back({t.start_ns[i], t.end_ns(i)});
    if (!s.steps.empty()) return s;
  }
  return {};
}

std::vector<Interval> cpuOps(const Trace& trace, uint32_t track, std::string_view name) {
  std::vector<Interval> out;
  const Track& t = trace.tracks[track];
  for (size_t i = 0; i < t.size(); ++i)
    if (trace.strings.get(t.name_id[i]) == name) out.push_back({t.start_ns[i], t.end_ns(i)});
  return out;
}

struct Kernel {
  std::string name;
  int64_t start;
  EventRef launch;
  int64_t launch_start;
  std::string launch_name;
};

// Every kernel with its launch call. A kernel without one fails the test.
std::vector<Kernel> kernels(const Trace& trace) {
  std::vector<Kernel> out;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (t.category[i] != Category::Kernel) continue;
      std::string name(trace.strings.get(t.name_id[i]));
      const LaunchLink* link = trace.launchFor(t.correlation[i]);
      if (!link || !link->launch) {
        ADD_FAILURE() << "kernel " << name << " (correlation " << t.correlation[i] << ") has no launch call";
        continue;
      }
      const Track& lt = trace.tracks[link->launch->track];
      out.push_back({name, t.start_ns[i], *link->launch, lt.start_ns[link->launch->index],
                     std::string(trace.name(*link->launch))});
    }
  }
  return out;
}

int stepOf(const StepTrack& s, int64_t t) {
  for (size_t k = 0; k < s.steps.size(); ++k)
    if (s.steps[k].contains(t)) return int(k);
  return -1;
}

bool isSplitKReduce(const std::string& kernel) {
  std::string lower = kernel;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  return lower.find("splitk") != std::string::npos && lower.find("reduce") != std::string::npos;
}

TEST(CaptureGpu, EagerMlpGivesFiveKernelsPerStepEachLinkedToItsLaunch) {
  SKIP_WITHOUT_GPU();
  CaptureResult r = capture(defaults("mlp"));
  const Trace& trace = r.trace;
  StepTrack st = stepTrack(trace);
  ASSERT_EQ(st.steps.size(), 3u);
  auto ks = kernels(trace);
  auto mm = cpuOps(trace, st.track, "aten::mm");
  auto gelu = cpuOps(trace, st.track, "aten::gelu");
  auto mul = cpuOps(trace, st.track, "aten::mul");
  auto launchedIn = [](const std::vector<Interval>& ops, int64_t t) {
    return std::any_of(ops.begin(), ops.end(), [&](const Interval& i) { return i.contains(t); });
  };
  std::map<int, std::vector<Kernel>> per_step;
  for (const auto& k : ks) {
    EXPECT_GE(k.start, k.launch_start) << k.name << " starts before its launch call " << k.launch_name;
    EXPECT_EQ(k.launch.track, st.track) << k.name << " was launched from another thread";
    int step = stepOf(st, k.launch_start);
    EXPECT_GE(step, 0) << k.name << " was launched outside the steps";
    per_step[step].push_back(k);
  }
  for (int step = 0; step < 3; ++step) {
    const auto& list = per_step[step];
    size_t split_k = std::count_if(list.begin(), list.end(), [](const Kernel& k) { return isSplitKReduce(k.name); });
    EXPECT_LE(split_k, 1u);
    EXPECT_EQ(list.size() - split_k, 5u) << "step " << step;
    size_t gemms = 0, gelus = 0, muls = 0;
    for (const auto& k : list) {
      if (isSplitKReduce(k.name)) continue;
      gemms += launchedIn(mm, k.launch_start);
      gelus += launchedIn(gelu, k.launch_start);
      muls += launchedIn(mul, k.launch_start);
    }
    EXPECT_EQ(gemms, 3u) << "step " << step;
    EXPECT_EQ(gelus, 1u) << "step " << step;
    EXPECT_EQ(muls, 1u) << "step " << step;
  }
}

// CUDA calls recorded through CUPTI callbacks instead of the activity kinds:
// the same kernels per step, each linked to the same kind of launch call.
TEST(CaptureGpu, CudaCallsByCallbacksGiveTheSameKernelsAndLaunches) {
  SKIP_WITHOUT_GPU();
  WorkloadParams p = defaults("mlp");
  p.batch = 1;
  p.seq = 64;
  auto summary = [](const Trace& trace) {
    StepTrack st = stepTrack(trace);
    EXPECT_EQ(st.steps.size(), 3u);
    std::multiset<std::string> launched;  // "step|launch call -> kernel"
    for (const auto& k : kernels(trace)) {
      EXPECT_GE(k.start, k.launch_start) << k.name;
      EXPECT_EQ(k.launch.track, st.track) << k.name;
      launched.insert(std::to_string(stepOf(st, k.launch_start)) + "|" + k.launch_name + " -> " + k.name);
    }
    return launched;
  };
  CaptureResult activity = capture(p, CuptiApiSource::ActivityKinds);
  CaptureResult callbacks = capture(p, CuptiApiSource::Callbacks);
  auto a = summary(activity.trace), c = summary(callbacks.trace);
  EXPECT_FALSE(c.empty());
  EXPECT_EQ(a, c);
  for (const auto& line : c) std::cout << "[ info ] " << line.substr(0, 120) << "\n";
  EXPECT_EQ(callbacks.trace.meta.dropped_records, 0u);
}

TEST(CaptureGpu, TransposeViewsLaunchNothing) {
  SKIP_WITHOUT_GPU();
  CaptureResult r = capture(defaults("mlp"));
  const Trace& trace = r.trace;
  StepTrack st = stepTrack(trace);
  auto views = cpuOps(trace, st.track, "aten::t");
  ASSERT_EQ(views.size(), 9u);  // 3 linears x 3 steps
  const Track& t = trace.tracks[st.track];
  for (const auto& v : views)
    for (size_t i = 0; i < t.size(); ++i)
      if (isLaunchCall(t.category[i]) && t.correlation[i] >= 0) {
        const LaunchLink* link = trace.launchFor(t.correlation[i]);
        bool launched_work = link && !link->gpu_ops.empty();
        EXPECT_FALSE(launched_work && v.contains(t.start_ns[i]))
            << "aten::t contains the launch " << trace.strings.get(t.name_id[i]);
      }
}

TEST(CaptureGpu, LinearIsOneGemmWithTheBiasInItsEpilogue) {
  SKIP_WITHOUT_GPU();
  CaptureResult r = capture(defaults("linear"));
  const Trace& trace = r.trace;
  StepTrack st = stepTrack(trace);
  ASSERT_EQ(st.steps.size(), 3u);
  auto addmm = cpuOps(trace, st.track, "aten::addmm");
  ASSERT_EQ(addmm.size(), 3u);
  std::map<int, int> per_step;
  for (const auto& k : kernels(trace)) {
    int step = stepOf(st, k.launch_start);
    ++per_step[step];
    bool in_addmm = std::any_of(addmm.begin(), addmm.end(), [&](const Interval& i) { return i.contains(k.launch_start); });
    EXPECT_TRUE(in_addmm) << k.name << " was not launched by aten::addmm (a separate add kernel?)";
  }
  for (int step = 0; step < 3; ++step) EXPECT_EQ(per_step[step], 1) << "step " << step;
  EXPECT_EQ(per_step.count(-1), 0u);
}

TEST(CaptureGpu, GraphReplayIsOneLaunchPerStepThatAllKernelsLinkTo) {
  SKIP_WITHOUT_GPU();
  WorkloadParams p = defaults("mlp");
  p.graph = true;
  CaptureResult r = capture(p);
  const Trace& trace = r.trace;
  StepTrack st = stepTrack(trace);
  ASSERT_EQ(st.steps.size(), 3u);
  // The graph launches that enqueued GPU work, per step.
  std::map<int, std::vector<int64_t>> graph_launches;
  const Track& cpu = trace.tracks[st.track];
  for (size_t i = 0; i < cpu.size(); ++i) {
    std::string name(trace.strings.get(cpu.name_id[i]));
    if (!isLaunchCall(cpu.category[i]) || name.find("GraphLaunch") == std::string::npos) continue;
    // Only the call the GPU work links to (a runtime launch may also show its driver call).
    const LaunchLink* link = trace.launchFor(cpu.correlation[i]);
    if (link && !link->gpu_ops.empty()) graph_launches[stepOf(st, cpu.start_ns[i])].push_back(cpu.correlation[i]);
  }
  for (int step = 0; step < 3; ++step) {
    ASSERT_EQ(graph_launches[step].size(), 1u) << "step " << step;
    const LaunchLink* link = trace.launchFor(graph_launches[step][0]);
    ASSERT_NE(link, nullptr);
    size_t n = 0, split_k = 0;
    for (const auto& op : link->gpu_ops) {
      const Track& g = trace.tracks[op.track];
      if (g.category[op.index] != Category::Kernel) continue;
      ++n;
      split_k += isSplitKReduce(std::string(trace.name(op)));
    }
    EXPECT_EQ(n - split_k, 5u) << "step " << step;
  }
  for (const auto& k : kernels(trace)) {
    EXPECT_NE(k.launch_name.find("GraphLaunch"), std::string::npos) << k.name << " launched by " << k.launch_name;
    EXPECT_GE(k.start, k.launch_start);
  }
}

TEST(CaptureGpu, SizesBeyondTheGpuMemoryAreRejectedBeforeAllocating) {
  SKIP_WITHOUT_GPU();
  WorkloadParams p = defaults("mlp");
  p.batch = 1 << 20;
  p.seq = 4096;
  try {
    makeWorkload(p);
    ADD_FAILURE() << "accepted";
  } catch (const WorkloadError& e) {
    EXPECT_NE(std::string(e.what()).find("GPU memory"), std::string::npos) << e.what();
  }
}

TEST(CaptureGpu, ExportedCaptureImportsWithTheSameKernels) {
  SKIP_WITHOUT_GPU();
  CaptureResult r = capture(defaults("mlp"));
  auto path = test::scratchDir("CaptureGpuExport") / "mlp.json.gz";
  exportChromeTrace(r.trace, path);
  Trace back = importChromeTrace(path);
  auto count = [](const Trace& t) {
    size_t n = 0;
    for (const auto& tr : t.tracks)
      for (auto c : tr.category) n += c == Category::Kernel;
    return n;
  };
  EXPECT_EQ(count(back), count(r.trace));
  EXPECT_EQ(kernels(back).size(), kernels(r.trace).size());
}

}  // namespace
}  // namespace fuselab
