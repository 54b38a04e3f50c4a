// How the flame graph nests a thread's CPU events: in the innermost event
// that contains them, Python frames under their caller, and each instant
// counted once where events only partly overlap (hand-made traces, a real
// training step, and a real trace made by the venv's torch,
// make_python_stack_trace.py).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "profiling/analysis/stacks/FlameGraph.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/TraceArgs.h"
#include "tests/support/FlameFramePath.h"
#include "tests/support/RunPython.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

using test::frameAtPath;

// A frame's CPU (total, self); -1s where no frame has that path.
using Cpu = std::pair<int64_t, int64_t>;
Cpu cpuAt(const Trace& t, const FlameGraph& g, const std::string& path) {
  const FlameFrame* f = frameAtPath(t, g, path);
  EXPECT_NE(f, nullptr) << path;
  return f ? Cpu(f->cpu_total_ns, f->cpu_self_ns) : Cpu(-1, -1);
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
  EXPECT_NE(frameAtPath(t, g, "thread 7;outer;caller;callee;inner"), nullptr);
  EXPECT_EQ(frameAtPath(t, g, "thread 7;outer;callee"), nullptr);
  EXPECT_EQ(frameAtPath(t, g, "thread 7;outer;sibling;late"), nullptr);
  const FlameFrame* add = frameAtPath(t, g, "thread 7;outer;late;aten::add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(g.frames[add->parent].cpu_self_ns, 5'000);  // late, less the op
  // late's time leaves sibling, which holds it, for outer, which called it.
  const FlameFrame* sibling = frameAtPath(t, g, "thread 7;outer;sibling");
  ASSERT_NE(sibling, nullptr);
  EXPECT_EQ(sibling->cpu_total_ns, 20'000);
  EXPECT_EQ(sibling->cpu_self_ns, 20'000);
  const FlameFrame* outer = frameAtPath(t, g, "thread 7;outer");
  ASSERT_NE(outer, nullptr);
  EXPECT_EQ(outer->cpu_self_ns, 50'000);  // less caller, sibling and late
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
      // A with-block's annotation outlives the call that began it, so it is
      // not under it; under it is a frame whose caller, that call, has ended.
      {"enter", 91, 3, ids(9, "1")},
      {"block", 92, 8, "", "user_annotation"},
      {"after_enter", 95, 2, ids(10, "9")},
  });
  const FlameGraph g = buildFlameGraph(t, {t.beginNs(), t.endNs(), {}});
  for (const char* path : {"thread 7;outer;unknown_caller", "thread 7;outer;string_caller", "thread 7;outer;float_caller",
                           "thread 7;outer;no_ids", "thread 7;outer;after_its_caller",
                           "thread 7;outer;sibling;inside_sibling", "thread 7;outer;sibling;cycle_b;cycle_a",
                           "thread 7;outer;block;after_enter"})
    EXPECT_NE(frameAtPath(t, g, path), nullptr) << path;
  EXPECT_EQ(g.python_frames_nested_by_time, 8u);
  EXPECT_EQ(invertFlameGraph(g, FlameMetric::Cpu).python_frames_nested_by_time, 8u);
}

// A with-block's annotation begins inside the call that enters the block and
// ends inside the one that leaves it: under neither, and the overlaps count
// once, in the event that began first.
Trace annotatedBlock() {
  return threadOf({
      {"outer", 0, 100, ids(1, "null")},
      {"enter", 10, 10, ids(2, "1")},
      {"enter_new", 12, 7, ids(3, "2")},
      {"block", 15, 65, "", "user_annotation"},
      {"body", 30, 20, ids(4, "1")},
      {"exit", 70, 20, ids(5, "1")},
      {"exit_call", 72, 13, ids(6, "5")},
      {"aten::empty", 73, 2, "", "cpu_op"},  // all of it inside block's time
      // Two outermost events that overlap: the thread counts 15 us.
      {"first", 200, 10, "", "cpu_op"},
      {"second", 205, 10, "", "cpu_op"},
  });
}

TEST(FlameGraph, PartlyOverlappingEventsNestInWhatContainsThem) {
  const Trace t = annotatedBlock();
  const FlameGraph g = buildFlameGraph(t, {t.beginNs(), t.endNs(), {}});
  EXPECT_EQ(frameAtPath(t, g, "thread 7;outer;enter;enter_new;block"), nullptr);
  auto cpu = [&](const std::string& path) { return cpuAt(t, g, path); };
  EXPECT_EQ(cpu("thread 7;outer"), Cpu(100'000, 20'000));  // 0-10 and 90-100
  EXPECT_EQ(cpu("thread 7;outer;enter;enter_new"), Cpu(7'000, 7'000));
  EXPECT_EQ(cpu("thread 7;outer;block"), Cpu(60'000, 40'000));  // from enter's end
  EXPECT_EQ(cpu("thread 7;outer;block;body"), Cpu(20'000, 20'000));
  EXPECT_EQ(cpu("thread 7;outer;exit"), Cpu(10'000, 5'000));  // from block's end
  EXPECT_EQ(cpu("thread 7;outer;exit;exit_call"), Cpu(5'000, 5'000));
  EXPECT_EQ(cpu("thread 7;outer;exit;exit_call;aten::empty"), Cpu(0, 0));
  const FlameFrame* empty = frameAtPath(t, g, "thread 7;outer;exit;exit_call;aten::empty");
  EXPECT_EQ(empty ? empty->count : 0u, 1u);
  EXPECT_EQ(cpu("thread 7;first"), Cpu(10'000, 10'000));
  EXPECT_EQ(cpu("thread 7;second"), Cpu(5'000, 5'000));
  EXPECT_EQ(g.total(FlameMetric::Cpu), 115'000);
  EXPECT_EQ(g.python_frames_nested_by_time, 0u);
}

TEST(FlameGraph, PartOverlapsCountOnceInARange) {
  const Trace t = annotatedBlock();
  // From inside enter_new, after block began, to inside exit_call.
  const FlameGraph g = buildFlameGraph(t, {t.beginNs() + 16'000, t.beginNs() + 80'000, {}});
  EXPECT_EQ(cpuAt(t, g, "thread 7;outer;block"), Cpu(60'000, 40'000));
  EXPECT_EQ(cpuAt(t, g, "thread 7;outer;enter"), Cpu(4'000, 1'000));
  EXPECT_EQ(cpuAt(t, g, "thread 7;outer;exit"), Cpu(0, 0));
  EXPECT_EQ(g.total(FlameMetric::Cpu), 64'000);
}

// Each instant of a thread counts once: its outermost frames add up to at
// most the time its events span in the range, and no frame's children add
// up to more than the frame.
void expectTimeCountedOnce(const Trace& t, const FlameGraph& g) {
  for (const FlameFrame& f : g.frames) {
    int64_t children = 0;
    for (uint32_t c : f.children) children += g.frames[c].cpu_total_ns;
    EXPECT_GE(f.cpu_self_ns, 0) << frameLabel(t, f);
    if (f.kind == FrameKind::Event) EXPECT_LE(children, f.cpu_total_ns) << frameLabel(t, f);
    if (f.kind != FrameKind::Thread) continue;
    const Track& track = t.tracks[f.track];
    int64_t first = g.end_ns, last = g.start_ns;
    for (uint32_t i = 0; i < track.size(); ++i) {
      if (track.end_ns(i) <= g.start_ns || track.start_ns[i] >= g.end_ns) continue;
      first = std::min(first, std::max(track.start_ns[i], g.start_ns));
      last = std::max(last, std::min(track.end_ns(i), g.end_ns));
    }
    EXPECT_EQ(children, f.cpu_total_ns) << frameLabel(t, f);
    EXPECT_LE(children, last - first) << frameLabel(t, f);
  }
}

// A real training step with Python frames: each ProfilerStep#k annotation
// begins inside profiler.step() and ends inside the next call, so the steps
// are one frame, under the loop that calls step().
TEST(FlameGraph, TimeCountsOnceOnARealTraceWithPartOverlaps) {
  const Trace t = importChromeTrace(test::dataDir("training-h200") / "training_step_memory.json.gz");
  const FlameGraph g = buildFlameGraph(t, analysisFlameRange(t));
  expectTimeCountedOnce(t, g);
  std::vector<std::string> step_parents;
  for (const FlameFrame& f : g.frames)
    if (f.kind == FrameKind::Event && frameLabel(t, f) == "ProfilerStep#*")
      step_parents.push_back(frameLabel(t, g.frames[f.parent]));
  EXPECT_EQ(step_parents, std::vector<std::string>{"make_training_traces.py(51): profile"});
}

// A real trace of the venv's torch: every Python frame's nearest Python
// frame above it in the graph is its caller's frame, though the `forward`
// annotation between them begins inside the Python call that enters the
// block and ends inside the one that leaves it.
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
  std::set<uint32_t> python_names;
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti)
    for (uint32_t i = 0; i < t.tracks[ti].size(); ++i)
      if (t.strings.get(t.tracks[ti].cat_id[i]) == "python_function") {
        if (t.tracks[ti].dur_ns[i] > 0) frames.push_back({ti, i});  // no time, no frame
        if (const auto id = argInt(t, {ti, i}, "Python id")) by_id[*id] = {ti, i};
        python_names.insert(t.tracks[ti].name_id[i]);
      }
  ASSERT_GT(frames.size(), 20u);
  // The graph's paths through its threads and Python frames only.
  std::set<std::string> python_paths;
  for (uint32_t f = 1; f < g.frames.size(); ++f) {
    std::string p;
    for (uint32_t k : g.path(f))
      if (g.frames[k].kind == FrameKind::Thread || python_names.count(g.frames[k].name_id))
        p += (p.empty() ? "" : ";") + frameLabel(t, g.frames[k]);
    python_paths.insert(p);
  }
  // A frame's path by its callers' ids; one without a caller (a null parent
  // id) sits right under its thread.
  std::function<std::string(EventRef)> pathOf = [&](EventRef e) {
    const auto caller = argInt(t, e, "Python parent id");
    return (caller ? pathOf(by_id.at(*caller)) : thread_label.at(e.track)) + ";" + std::string(t.name(e));
  };
  for (EventRef e : frames) EXPECT_TRUE(python_paths.count(pathOf(e))) << pathOf(e);
  // The model runs inside the annotation, as torch's own event tree has it.
  bool model_in_block = false;
  for (const FlameFrame& f : g.frames)
    if (f.kind == FrameKind::Event && frameLabel(t, f) == "nn.Module: Sequential_0")
      model_in_block = frameLabel(t, g.frames[f.parent]) == "forward";
  EXPECT_TRUE(model_in_block);
}

TEST_F(TorchPythonStacks, TimeCountsOnce) {
  expectTimeCountedOnce(trace_, buildFlameGraph(trace_, {trace_.beginNs(), trace_.endNs(), {}}));
}

}  // namespace
}  // namespace fuselab
