// The flame graph: CPU time by stack with GPU time under the launch that
// started it, merged across steps; its inversion; Python frames under their
// caller (hand-made traces, and a real one made by the venv's torch,
// make_python_stack_trace.py); the folded stacks' sums against the analysis
// on a real H100 trace, and a stack read back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/stacks/FlameGraph.h"
#include "profiling/analysis/stacks/FoldedStacks.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/TraceArgs.h"
#include "tests/support/RunPython.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

// Two steps, each: linear > addmm > cudaLaunchKernel -> gemm (40 us on the
// GPU), and a copy launched from outside any op.
Trace twoSteps() {
  std::string events;
  for (int k = 0; k < 2; ++k) {
    const int t0 = 1000 * k;
    auto at = [&](int us) { return std::to_string(t0 + us); };
    const std::string corr = std::to_string(10 + k);
    events += R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" + std::to_string(k) +
              R"(", "pid": 1, "tid": 7, "ts": )" + at(0) + R"(, "dur": 100},
      {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 7, "ts": )" + at(10) + R"(, "dur": 50},
      {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 7, "ts": )" + at(15) + R"(, "dur": 40},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 7, "ts": )" + at(20) +
              R"(, "dur": 10, "args": {"correlation": )" + corr + R"(}},
      {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": )" + at(40) +
              R"(, "dur": 40, "args": {"correlation": )" + corr + R"(, "device": 0, "stream": 7}},
      {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": )" + at(85) +
              R"(, "dur": 5, "args": {"device": 0, "stream": 7}},)";
  }
  events.pop_back();
  return importChromeTraceFromBuffer(R"({"traceEvents": [)" + events + "]}", "flame-test");
}

// Frame by its path of labels ("ProfilerStep#0;aten::linear").
const FlameFrame* find(const Trace& t, const FlameGraph& g, const std::string& path) {
  for (uint32_t f = 1; f < g.frames.size(); ++f) {
    std::string p;
    for (uint32_t k : g.path(f)) p += (p.empty() ? "" : ";") + frameLabel(t, g.frames[k]);
    if (p == path) return &g.frames[f];
  }
  return nullptr;
}

TEST(FlameGraph, CpuStacksWithGpuTimeUnderTheLaunch) {
  const Trace t = twoSteps();
  const FlameGraph g = buildFlameGraph(t, {t.beginNs(), t.endNs(), {}});
  const FlameFrame* linear = find(t, g, "thread 7;ProfilerStep#*;aten::linear");
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->count, 2u);  // the steps merged
  EXPECT_EQ(linear->cpu_total_ns, 100'000);
  EXPECT_EQ(linear->cpu_self_ns, 20'000);
  EXPECT_EQ(linear->gpu_total_ns, 80'000);
  const FlameFrame* gemm = find(t, g, "thread 7;ProfilerStep#*;aten::linear;aten::addmm;cudaLaunchKernel;gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->kind, FrameKind::GpuOp);
  EXPECT_EQ(gemm->count, 2u);
  EXPECT_EQ(gemm->gpu_self_ns, 80'000);
  EXPECT_EQ(gemm->cpu_total_ns, 0);
  const FlameFrame* copies = find(t, g, "[GPU ops without a launch];Memcpy HtoD");
  ASSERT_NE(copies, nullptr);
  EXPECT_EQ(copies->count, 2u);
  EXPECT_EQ(g.total(FlameMetric::Cpu), 200'000);  // two steps of 100 us
  EXPECT_EQ(g.total(FlameMetric::Gpu), 90'000);   // two gemms and two copies
}

TEST(FlameGraph, RangeClipsCpuTimeAndCountsGpuOpsByTheirLaunch) {
  const Trace t = twoSteps();
  const int64_t b = t.beginNs();
  // Inside step 0 from 12 us to 25 us: the launch (20 us) is in, its kernel
  // runs after the range and counts whole.
  const FlameGraph g = buildFlameGraph(t, {b + 12'000, b + 25'000, {}});
  EXPECT_EQ(g.total(FlameMetric::Cpu), 13'000);
  EXPECT_EQ(g.total(FlameMetric::Gpu), 40'000);
  const FlameFrame* addmm = find(t, g, "thread 7;ProfilerStep#*;aten::linear;aten::addmm");
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(addmm->cpu_total_ns, 10'000);  // 15..25
  EXPECT_EQ(addmm->cpu_self_ns, 5'000);    // less the launch's 20..25
}

TEST(FlameGraph, InvertedPutsSelfTimeOnTop) {
  const Trace t = twoSteps();
  const FlameGraph g = buildFlameGraph(t, {t.beginNs(), t.endNs(), {}});
  for (FlameMetric m : {FlameMetric::Cpu, FlameMetric::Gpu}) {
    const FlameGraph inv = invertFlameGraph(g, m);
    EXPECT_TRUE(inv.inverted);
    EXPECT_EQ(inv.total(m), g.total(m));
    int64_t top = 0;
    for (uint32_t c : inv.root().children) top += inv.frames[c].total(m);
    EXPECT_EQ(top, g.total(m));
  }
  const FlameGraph inv = invertFlameGraph(g, FlameMetric::Gpu);
  const FlameFrame* callers = find(t, inv, "gemm;cudaLaunchKernel;aten::addmm;aten::linear;ProfilerStep#*");
  ASSERT_NE(callers, nullptr);
  EXPECT_EQ(callers->gpu_total_ns, 80'000);
}

struct Event {
  std::string name;
  int ts_us, dur_us;
  std::string args;
  std::string cat = "python_function";
};

// Events on thread 7, in this order in the file.
Trace threadOf(const std::vector<Event>& list) {
  std::string events;
  for (const Event& e : list)
    events += R"({"ph": "X", "cat": ")" + e.cat + R"(", "name": ")" + e.name + R"(", "pid": 1, "tid": 7, "ts": )" +
              std::to_string(e.ts_us) + R"(, "dur": )" + std::to_string(e.dur_us) +
              (e.args.empty() ? "" : R"(, "args": )" + e.args) + "},";
  events.pop_back();
  return importChromeTraceFromBuffer(R"({"traceEvents": [)" + events + "]}", "python-frames");
}

std::string ids(int id, const std::string& parent) {
  return R"({"Python parent id": )" + parent + R"(, "Python id": )" + std::to_string(id) + "}";
}

TEST(FlameGraph, PythonFramesGoUnderTheirCaller) {
  const Trace t = threadOf({
      {"outer", 0, 100, ids(1, "null")},
      // Equal times: listed first, callees would hold their callers.
      {"inner", 10, 20, ids(6, "3")},
      {"callee", 10, 20, ids(3, "2")},
      {"caller", 10, 20, ids(2, "1")},
      // Inside `sibling` by time, called by `outer`; an op in it nests by time.
      {"sibling", 40, 30, ids(4, "1")},
      {"late", 50, 10, ids(5, "1")},
      {"aten::add", 52, 5, "", "cpu_op"},
  });
  const FlameGraph g = buildFlameGraph(t, {t.beginNs(), t.endNs(), {}});
  EXPECT_NE(find(t, g, "thread 7;outer;caller;callee;inner"), nullptr);
  EXPECT_EQ(find(t, g, "thread 7;outer;callee"), nullptr);
  EXPECT_EQ(find(t, g, "thread 7;outer;sibling;late"), nullptr);
  const FlameFrame* add = find(t, g, "thread 7;outer;late;aten::add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(g.frames[add->parent].cpu_self_ns, 5'000);  // late, less the op
  const FlameFrame* outer = find(t, g, "thread 7;outer");
  ASSERT_NE(outer, nullptr);
  EXPECT_EQ(outer->cpu_self_ns, 40'000);  // less caller, sibling and late
  EXPECT_EQ(g.total(FlameMetric::Cpu), 100'000);
  EXPECT_EQ(g.python_frames_nested_by_time, 0u);
}

TEST(FlameGraph, PythonFramesWithoutAnOpenCallerNestByTime) {
  const Trace t = threadOf({
      {"outer", 0, 100, ids(1, "null")},
      {"unknown_caller", 10, 5, ids(2, "99")},
      {"string_caller", 20, 5, ids(3, R"("1")")},
      {"float_caller", 30, 5, ids(4, "1.5")},
      {"no_ids", 40, 5, ""},
      {"ended", 50, 5, ids(5, "1")},
      {"after_its_caller", 60, 5, ids(6, "5")},
      {"sibling", 70, 20, ids(7, "1")},
      {"inside_sibling", 75, 5, ids(8, "98")},
      // Equal times and ids that call each other: one goes first, by time.
      {"cycle_a", 82, 4, ids(11, "12")},
      {"cycle_b", 82, 4, ids(12, "11")},
      // A with-block's annotation outlives the call that began it: under it
      // is a frame whose caller, that call, has ended.
      {"enter", 91, 3, ids(9, "1")},
      {"block", 92, 8, "", "user_annotation"},
      {"after_enter", 95, 2, ids(10, "9")},
  });
  const FlameGraph g = buildFlameGraph(t, {t.beginNs(), t.endNs(), {}});
  for (const char* path : {"thread 7;outer;unknown_caller", "thread 7;outer;string_caller", "thread 7;outer;float_caller",
                           "thread 7;outer;no_ids", "thread 7;outer;after_its_caller",
                           "thread 7;outer;sibling;inside_sibling", "thread 7;outer;sibling;cycle_b;cycle_a",
                           "thread 7;outer;enter;block;after_enter"})
    EXPECT_NE(find(t, g, path), nullptr) << path;
  EXPECT_EQ(g.python_frames_nested_by_time, 8u);
  EXPECT_EQ(invertFlameGraph(g, FlameMetric::Cpu).python_frames_nested_by_time, 8u);
}

// A real trace of the venv's torch: every Python frame's parent in the graph
// is its caller's frame, though the forward's frames begin after the
// `record_function` call that time would nest them under has returned.
class TorchPythonStacks : public ::testing::Test {
 protected:
  static constexpr int kNoTorchExit = 3;
  void SetUp() override {
    const auto dir = std::filesystem::path(test::scratchDir("TorchPythonStacks-" + std::to_string(::getpid())));
    const test::PythonResult r =
        test::runPython("tests/profiling/analysis/make_python_stack_trace.py", {dir.string()}, /*with_stderr=*/true);
    if (r.exit_code == kNoTorchExit) GTEST_SKIP() << "torch is not available:\n" << r.output;
    ASSERT_EQ(r.exit_code, 0) << "make_python_stack_trace.py failed:\n" << r.output;
    trace_ = importChromeTrace(dir / "python_stack.json");
    std::filesystem::remove_all(dir);
  }
  Trace trace_;
};

TEST_F(TorchPythonStacks, EveryFrameIsUnderItsCaller) {
  const Trace& t = trace_;
  const FlameGraph g = buildFlameGraph(t, {t.beginNs(), t.endNs(), {}});
  EXPECT_EQ(g.python_frames_nested_by_time, 0u);
  std::map<uint32_t, std::string> thread_label;
  for (const FlameFrame& f : g.frames)
    if (f.kind == FrameKind::Thread) thread_label[f.track] = frameLabel(t, f);
  std::map<int64_t, EventRef> by_id;
  std::vector<EventRef> frames;
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti)
    for (uint32_t i = 0; i < t.tracks[ti].size(); ++i)
      if (t.strings.get(t.tracks[ti].cat_id[i]) == "python_function") {
        if (t.tracks[ti].dur_ns[i] > 0) frames.push_back({ti, i});  // no time, no frame
        if (const auto id = argInt(t, {ti, i}, "Python id")) by_id[*id] = {ti, i};
      }
  ASSERT_GT(frames.size(), 20u);
  // A frame's path by its callers' ids; one without a caller (a null parent
  // id) sits right under its thread.
  std::function<std::string(EventRef)> pathOf = [&](EventRef e) {
    const auto caller = argInt(t, e, "Python parent id");
    return (caller ? pathOf(by_id.at(*caller)) : thread_label.at(e.track)) + ";" + std::string(t.name(e));
  };
  for (EventRef e : frames) EXPECT_NE(find(t, g, pathOf(e)), nullptr) << pathOf(e);
}

// Folded lines as (stack, microseconds).
std::map<std::string, int64_t> readFolded(const std::string& text) {
  std::map<std::string, int64_t> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t space = line.rfind(' ');
    EXPECT_NE(space, std::string::npos) << line;
    out[line.substr(0, space)] += std::stoll(line.substr(space + 1));
  }
  return out;
}

TEST(FoldedStacks, SumsEqualTheAnalysisOnARealTrace) {
  const Trace t = importChromeTrace(test::fixture("mlp_eager.json.gz"));
  const TraceAnalysis a = analyzeTrace(t);
  const FlameGraph g = buildFlameGraph(t, analysisFlameRange(t));

  int64_t gpu_ns = 0;
  for (const KernelRow& k : a.kernels) gpu_ns += k.total_ns;
  ASSERT_GT(gpu_ns, 0);
  EXPECT_EQ(g.total(FlameMetric::Gpu), gpu_ns);
  int64_t gpu_us = 0;
  for (const auto& [stack, us] : readFolded(foldedStacks(t, g, FlameMetric::Gpu))) gpu_us += us;
  EXPECT_EQ(gpu_us, std::llround(double(gpu_ns) / 1000.0));

  // CPU: every frame's self time adds up to the graph's total, and to the
  // threads' busy time in the steps.
  int64_t self_ns = 0;
  for (const FlameFrame& f : g.frames) self_ns += f.cpu_self_ns;
  EXPECT_EQ(self_ns, g.total(FlameMetric::Cpu));
  const auto cpu = readFolded(foldedStacks(t, g, FlameMetric::Cpu));
  int64_t cpu_us = 0;
  for (const auto& [stack, us] : cpu) cpu_us += us;
  EXPECT_EQ(cpu_us, std::llround(double(self_ns) / 1000.0));

  // A stack read back is the flame graph's frame: the largest one's self.
  const FlameFrame* largest = nullptr;
  for (const FlameFrame& f : g.frames)
    if (f.kind == FrameKind::Event && (!largest || f.cpu_self_ns > largest->cpu_self_ns)) largest = &f;
  ASSERT_NE(largest, nullptr);
  std::string path;
  for (uint32_t k : g.path(uint32_t(largest - g.frames.data()))) path += (path.empty() ? "" : ";") + frameLabel(t, g.frames[k]);
  ASSERT_TRUE(cpu.count(path)) << path;
  EXPECT_NEAR(double(cpu.at(path)), double(largest->cpu_self_ns) / 1000.0, 1.0);
}

TEST(FoldedStacks, NamesWithSeparatorsStayOneFrame) {
  const Trace t = importChromeTraceFromBuffer(
      R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a;b\nc", "pid": 1, "tid": 2, "ts": 0, "dur": 5}]})",
      "separators");
  const FlameGraph g = buildFlameGraph(t, {t.beginNs(), t.endNs(), {}});
  EXPECT_EQ(foldedStacks(t, g, FlameMetric::Cpu), "thread 2;a,b c 5\n");
  EXPECT_EQ(foldedStacks(t, g, FlameMetric::Gpu), "");
}

}  // namespace
}  // namespace fuselab
