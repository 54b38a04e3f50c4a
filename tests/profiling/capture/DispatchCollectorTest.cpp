// The RecordFunction collector on CPU ops: nesting, thread ids, input dims,
// dropped counting, name interning of reused annotation storage, and that
// nothing is recorded after stop().
#include <gtest/gtest.h>

#include <ATen/ops/add.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/ones.h>
#include <ATen/record_function.h>
#include <nlohmann/json.hpp>

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "profiling/capture/DispatchCollector.h"

namespace fuselab {
namespace {

int64_t tid() { return static_cast<int64_t>(::syscall(SYS_gettid)); }

// A user scope with a name built at run time (its text lives in the
// RecordFunction, so storage is reused between scopes).
void scoped(const std::string& name, const std::function<void()>& body) {
  at::RecordFunction guard(at::RecordScope::USER_SCOPE);
  if (guard.isActive()) guard.before(std::string_view(name));
  body();
}

std::vector<DispatchEvent> named(const std::vector<DispatchEvent>& all, const std::string& name) {
  std::vector<DispatchEvent> out;
  for (const auto& e : all)
    if (e.name == name) out.push_back(e);
  return out;
}

TEST(DispatchCollector, RecordsNestedOpsInsideAUserScope) {
  at::Tensor a = at::ones({2, 3}), b = at::ones({3, 4});
  DispatchCollector c;
  std::string err;
  ASSERT_TRUE(c.start({}, &err)) << err;
  scoped("outer", [&] { at::mm(a, b); });
  c.stop();
  auto events = c.events();
  auto outer = named(events, "outer");
  auto mm = named(events, "aten::mm");
  ASSERT_EQ(outer.size(), 1u);
  ASSERT_EQ(mm.size(), 1u);
  EXPECT_TRUE(outer[0].user_scope);
  EXPECT_FALSE(mm[0].user_scope);
  EXPECT_EQ(mm[0].depth, outer[0].depth + 1);
  EXPECT_LE(outer[0].start_ns, mm[0].start_ns);
  EXPECT_LE(mm[0].end_ns, outer[0].end_ns);
  EXPECT_LE(mm[0].start_ns, mm[0].end_ns);
  EXPECT_TRUE(outer[0].closed && mm[0].closed);
  EXPECT_EQ(mm[0].tid, tid());
  EXPECT_FALSE(mm[0].has_shapes);  // not asked for
  EXPECT_EQ(c.droppedEvents(), 0u);
}

TEST(DispatchCollector, TimestampsAreOnTheRealtimeClock) {
  DispatchCollector c;
  ASSERT_TRUE(c.start({}, nullptr));
  int64_t before = DispatchCollector::nowNs();
  at::add(at::ones({2}), at::ones({2}));
  int64_t after = DispatchCollector::nowNs();
  c.stop();
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int64_t realtime = int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  auto add = named(c.events(), "aten::add");
  ASSERT_EQ(add.size(), 1u);
  EXPECT_GE(add[0].start_ns, before);
  EXPECT_LE(add[0].end_ns, after);
  EXPECT_LE(after, realtime);
  EXPECT_GT(after, realtime - int64_t(60) * 1000000000);
}

TEST(DispatchCollector, RecordsInputDimsWhenAsked) {
  at::Tensor a = at::ones({2, 3}), b = at::ones({3, 4});
  DispatchCollector c;
  DispatchOptions o;
  o.record_shapes = true;
  ASSERT_TRUE(c.start(o, nullptr));
  at::mm(a, b);
  at::add(a, 1.5);
  c.stop();
  auto events = c.events();
  auto mm = named(events, "aten::mm");
  ASSERT_EQ(mm.size(), 1u);
  ASSERT_TRUE(mm[0].has_shapes);
  EXPECT_EQ(mm[0].input_dims, (std::vector<std::vector<int64_t>>{{2, 3}, {3, 4}}));
  auto add = named(events, "aten::add");  // add.Scalar may redispatch to add.Tensor: take the outer one
  ASSERT_GE(add.size(), 1u);
  ASSERT_GE(add[0].input_dims.size(), 2u);
  EXPECT_EQ(add[0].input_dims[0], (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(add[0].input_dims[1].empty());  // the scalar

  Trace trace;
  c.appendTo(trace);
  trace.finalize();
  bool found = false;
  for (const auto& t : trace.tracks)
    for (size_t i = 0; i < t.size(); ++i)
      if (trace.strings.get(t.name_id[i]) == "aten::mm") {
        auto args = nlohmann::json::parse(trace.argsJson(t.args[i]));
        EXPECT_EQ(args["Input Dims"], nlohmann::json::parse("[[2,3],[3,4]]"));
        EXPECT_EQ(args["Input type"], nlohmann::json::parse(R"(["float","float"])"));  // Kineto's spelling
        found = true;
      }
  EXPECT_TRUE(found);
}

TEST(DispatchCollector, EachThreadGetsItsOwnTrackWithItsOsThreadId) {
  DispatchCollector c;
  ASSERT_TRUE(c.start({}, nullptr));
  int64_t worker_tid = 0;
  std::thread worker([&] {
    worker_tid = tid();
    scoped("on_worker", [] { at::add(at::ones({2}), at::ones({2})); });
  });
  worker.join();
  scoped("on_main", [] { at::add(at::ones({2}), at::ones({2})); });
  c.stop();
  auto events = c.events();
  auto w = named(events, "on_worker");
  auto m = named(events, "on_main");
  ASSERT_EQ(w.size(), 1u);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(w[0].tid, worker_tid);
  EXPECT_EQ(m[0].tid, tid());
  EXPECT_NE(worker_tid, tid());
  EXPECT_EQ(c.threadCount(), 2u);

  Trace trace;
  c.appendTo(trace);
  trace.finalize();
  const std::string pid = std::to_string(::getpid());
  int matched = 0;
  for (const auto& t : trace.tracks) {
    EXPECT_EQ(trace.strings.get(t.pid_id), pid);
    EXPECT_EQ(t.kind, TrackKind::Cpu);
    std::string thread_name(trace.strings.get(t.thread_name_id));
    EXPECT_EQ(thread_name.rfind("thread " + std::to_string(t.tid) + " (", 0), 0u) << thread_name;
    for (size_t i = 0; i < t.size(); ++i) {
      auto name = trace.strings.get(t.name_id[i]);
      if (name == "on_worker") {
        EXPECT_EQ(t.tid, worker_tid);
        EXPECT_EQ(t.category[i], Category::UserAnnotation);
        ++matched;
      }
      if (name == "aten::add") EXPECT_EQ(t.category[i], Category::CpuOp);
    }
  }
  EXPECT_EQ(matched, 1);
}

TEST(DispatchCollector, CountsEventsPastCapacityAsDropped) {
  auto work = [] {
    for (int i = 0; i < 10; ++i) at::add(at::ones({2}), at::ones({2}));
  };
  DispatchCollector full;
  ASSERT_TRUE(full.start({}, nullptr));
  work();
  full.stop();
  const size_t total = full.eventCount();
  ASSERT_GT(total, 10u);

  DispatchCollector small;
  DispatchOptions o;
  o.events_per_thread = 5;
  ASSERT_TRUE(small.start(o, nullptr));
  work();
  small.stop();
  EXPECT_EQ(small.eventCount(), 5u);
  EXPECT_EQ(small.droppedEvents(), total - 5);
}

TEST(DispatchCollector, RecordsNothingAfterStop) {
  DispatchCollector c;
  ASSERT_TRUE(c.start({}, nullptr));
  at::add(at::ones({2}), at::ones({2}));
  c.stop();
  const size_t n = c.eventCount();
  ASSERT_GT(n, 0u);
  at::add(at::ones({2}), at::ones({2}));
  std::thread([] { at::add(at::ones({2}), at::ones({2})); }).join();
  EXPECT_EQ(c.eventCount(), n);
  EXPECT_EQ(c.threadCount(), 1u);
  EXPECT_FALSE(c.recording());

  // A new run starts empty.
  ASSERT_TRUE(c.start({}, nullptr));
  c.stop();
  EXPECT_EQ(c.eventCount(), 0u);
}

TEST(DispatchCollector, OnlyOneRecordsAtATime) {
  DispatchCollector a, b;
  ASSERT_TRUE(a.start({}, nullptr));
  std::string err;
  EXPECT_FALSE(b.start({}, &err));
  EXPECT_NE(err.find("already recording"), std::string::npos) << err;
  a.stop();
  EXPECT_TRUE(b.start({}, &err)) << err;
}

TEST(DispatchCollector, AnnotationNamesInReusedStorageStayDistinct) {
  DispatchCollector c;
  ASSERT_TRUE(c.start({}, nullptr));
  for (int i = 0; i < 5; ++i) scoped("ProfilerStep#" + std::to_string(i), [] {});
  c.stop();
  std::vector<std::string> names;
  for (const auto& e : c.events())
    if (e.user_scope) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2",
                                             "ProfilerStep#3", "ProfilerStep#4"}));
}

TEST(DispatchCollector, AFullNameTableKeepsTheEventsUnnamed) {
  DispatchCollector c;
  DispatchOptions o;
  o.names_per_thread = 2;
  ASSERT_TRUE(c.start(o, nullptr));
  for (int i = 0; i < 4; ++i) scoped("scope" + std::to_string(i), [] {});
  c.stop();
  auto events = c.events();
  EXPECT_EQ(events.size(), 4u);
  EXPECT_EQ(c.unnamedEvents(), 2u);
  EXPECT_EQ(events[0].name, "scope0");
  EXPECT_EQ(events[3].name.find("(unnamed"), 0u);
}

TEST(DispatchCollector, AnEventOpenAtStopEndsAtTheStopTime) {
  DispatchCollector c;
  ASSERT_TRUE(c.start({}, nullptr));
  scoped("still_open", [&] { c.stop(); });
  auto open = named(c.events(), "still_open");
  ASSERT_EQ(open.size(), 1u);
  EXPECT_FALSE(open[0].closed);
  EXPECT_GE(open[0].end_ns, open[0].start_ns);
}

// c10d's collective work: an async event started on one thread and ended on
// another (Gloo's worker), kept on its starting thread with its real end; the
// starting thread's nesting is not disturbed.
TEST(DispatchCollector, AnAsyncEventEndedOnAnotherThreadKeepsItsEnd) {
  at::Tensor a = at::ones({2, 2});
  DispatchCollector c;
  ASSERT_TRUE(c.start({}, nullptr));
  auto work = std::make_unique<at::RecordFunction>(at::RecordScope::USER_SCOPE);
  ASSERT_TRUE(work->isActive());
  work->_setAsync();
  work->before("gloo:all_reduce");
  scoped("after", [&] { at::add(a, a); });
  std::thread([&] { work->end(); }).join();
  const int64_t ended = DispatchCollector::nowNs();
  c.stop();
  auto async = named(c.events(), "gloo:all_reduce");
  auto after = named(c.events(), "after");
  ASSERT_EQ(async.size(), 1u);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_TRUE(async[0].closed);
  EXPECT_LE(async[0].end_ns, ended);
  EXPECT_GE(async[0].end_ns, after[0].end_ns);
  EXPECT_EQ(async[0].tid, tid());
  EXPECT_EQ(after[0].depth, 0);  // the async event is not an enclosing scope
  EXPECT_TRUE(after[0].closed);
}

// What the capture does with its recorded warm-up: events that start before
// the cut are left out, and a thread that only ran before it gets no track.
TEST(DispatchCollector, AppendLeavesOutEventsBeforeTheCut) {
  DispatchCollector c;
  ASSERT_TRUE(c.start({}, nullptr));
  std::thread early([] { scoped("worker_before", [] { at::add(at::ones({2}), at::ones({2})); }); });
  early.join();
  scoped("main_before", [] {});
  const int64_t cut = DispatchCollector::nowNs();
  scoped("main_after", [] { at::add(at::ones({2}), at::ones({2})); });
  c.stop();
  ASSERT_EQ(c.threadCount(), 2u);

  Trace trace;
  c.appendTo(trace, cut);
  trace.finalize();
  std::vector<std::string> names;
  for (const auto& t : trace.tracks) {
    EXPECT_EQ(t.tid, tid()) << "the worker ran before the cut only";
    for (size_t i = 0; i < t.size(); ++i) {
      names.emplace_back(trace.strings.get(t.name_id[i]));
      EXPECT_GE(t.start_ns[i], cut) << names.back();
    }
  }
  EXPECT_EQ(trace.tracks.size(), 1u);
  EXPECT_NE(std::find(names.begin(), names.end(), "main_after"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "aten::add"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "main_before"), names.end());

  Trace everything;
  c.appendTo(everything);  // no cut: all of it, both threads
  EXPECT_EQ(everything.tracks.size(), 2u);
}

}  // namespace
}  // namespace fuselab
