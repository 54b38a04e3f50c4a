// How the flame graph nests a thread's CPU events: Python frames under
// their caller (hand-made traces, and a real trace made by the venv's torch,
// make_python_stack_trace.py).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <string>
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
  const FlameFrame* outer = frameAtPath(t, g, "thread 7;outer");
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
    EXPECT_NE(frameAtPath(t, g, path), nullptr) << path;
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
  for (EventRef e : frames) EXPECT_NE(frameAtPath(t, g, pathOf(e)), nullptr) << pathOf(e);
}

}  // namespace
}  // namespace fuselab
