#include "profiling/trace/ChromeTraceImport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "profiling/trace/Gzip.h"
#include "tests/support/FixtureJson.h"

namespace fuselab {
namespace {

using test::PreciseJson;

const Track* findTrack(const Trace& t, const std::string& pid, const std::string& tid) {
  for (const Track& tr : t.tracks)
    if (tr.size() > 0 && t.strings.get(tr.pid_id) == pid && t.strings.get(tr.tid_id) == tid) return &tr;
  return nullptr;
}

bool isGpuCat(const std::string& c) { return c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset"; }
bool isLaunchCat(const std::string& c) { return c == "cuda_runtime" || c == "cuda_driver"; }

// ---------------------------------------------------------------------------
// Every fixture, checked against what nlohmann reads from the same file.

class FixtureImport : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    json_ = test::fixtureJson(GetParam());
    trace_ = importChromeTrace(test::fixtureGz(GetParam()));
  }
  const PreciseJson& events() const { return json_["traceEvents"]; }
  PreciseJson json_;
  Trace trace_;
};

// An import that keeps no event's args gives the same trace otherwise: the
// columns filled from the args, the lanes' placement, the links.
TEST_P(FixtureImport, KeepingNoArgsChangesNothingElse) {
  ChromeImportOptions o;
  o.keep_args = +[](std::string_view) { return false; };
  const Trace lean = importChromeTrace(test::fixtureGz(GetParam()), o);
  ASSERT_EQ(lean.tracks.size(), trace_.tracks.size());
  for (size_t ti = 0; ti < lean.tracks.size(); ++ti) {
    const Track& a = lean.tracks[ti];
    const Track& b = trace_.tracks[ti];
    EXPECT_EQ(a.start_ns, b.start_ns) << ti;
    EXPECT_EQ(a.dur_ns, b.dur_ns) << ti;
    EXPECT_EQ(a.category, b.category) << ti;
    EXPECT_EQ(a.depth, b.depth) << ti;
    EXPECT_EQ(a.correlation, b.correlation) << ti;
    EXPECT_EQ(a.external_id, b.external_id) << ti;
    EXPECT_EQ(a.kind, b.kind) << ti;
    EXPECT_EQ(a.device, b.device) << ti;
    EXPECT_EQ(a.stream, b.stream) << ti;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(lean.strings.get(a.name_id[i]), trace_.strings.get(b.name_id[i])) << ti << "/" << i;
      EXPECT_EQ(a.args[i].length, 0u) << ti << "/" << i;
    }
  }
  EXPECT_EQ(lean.flows.size(), trace_.flows.size());
  EXPECT_EQ(lean.launches().size(), trace_.launches().size());
  EXPECT_TRUE(lean.args_text->empty());
}

TEST_P(FixtureImport, EveryCompleteEventLandsOnItsLane) {
  std::map<std::pair<std::string, std::string>, size_t> per_lane;
  size_t x_events = 0;
  for (const auto& e : events()) {
    if (e["ph"] != "X") continue;
    ++x_events;
    ++per_lane[{test::tokenOf(e["pid"]), test::tokenOf(e["tid"])}];
  }
  ASSERT_GT(x_events, 0u);
  EXPECT_EQ(trace_.eventCount(), x_events);
  EXPECT_EQ(trace_.nonEmptyTrackCount(), per_lane.size());
  for (const auto& [lane, count] : per_lane) {
    const Track* t = findTrack(trace_, lane.first, lane.second);
    ASSERT_NE(t, nullptr) << "lane " << lane.first << "/" << lane.second;
    EXPECT_EQ(t->size(), count) << "lane " << lane.first << "/" << lane.second;
  }
}

TEST_P(FixtureImport, NamesCategoriesAndExactTimesMatchTheFile) {
  const int64_t base = json_["baseTimeNanoseconds"].get<int64_t>();
  EXPECT_EQ(trace_.meta.base_time_ns, base);
  using Key = std::tuple<std::string, std::string, std::string, std::string, int64_t, int64_t>;
  std::multiset<Key> expected, actual;
  for (const auto& e : events()) {
    if (e["ph"] != "X") continue;
    expected.emplace(test::tokenOf(e["pid"]) + "/" + test::tokenOf(e["tid"]), e.value("cat", ""), e.value("name", ""),
                     "", base + test::usToNs(e["ts"]), test::usToNs(e["dur"]));
  }
  for (const Track& t : trace_.tracks)
    for (size_t i = 0; i < t.size(); ++i)
      actual.emplace(std::string(trace_.strings.get(t.pid_id)) + "/" + std::string(trace_.strings.get(t.tid_id)),
                     std::string(trace_.strings.get(t.cat_id[i])), std::string(trace_.strings.get(t.name_id[i])), "",
                     t.start_ns[i], t.dur_ns[i]);
  EXPECT_EQ(actual, expected);
}

TEST_P(FixtureImport, CorrelationAndExternalIdColumnsComeFromArgs) {
  std::multiset<std::tuple<std::string, int64_t, int64_t>> expected, actual;
  for (const auto& e : events()) {
    if (e["ph"] != "X") continue;
    const auto& a = e.contains("args") ? e["args"] : PreciseJson::object();
    expected.emplace(e.value("name", ""), a.contains("correlation") ? a["correlation"].get<int64_t>() : -1,
                     a.contains("External id") ? a["External id"].get<int64_t>() : -1);
  }
  for (const Track& t : trace_.tracks)
    for (size_t i = 0; i < t.size(); ++i)
      actual.emplace(std::string(trace_.strings.get(t.name_id[i])), t.correlation[i], t.external_id[i]);
  EXPECT_EQ(actual, expected);
}

TEST_P(FixtureImport, EveryFlowEventIsAccountedFor) {
  // A flow end is "derived" when it sits exactly at the start of the launch
  // call (s) or a GPU op (f) carrying its id as correlation, and that
  // correlation joins a launch call to at least one GPU op: the trace keeps
  // those as launch links. All other ends are stored flows or raw events.
  struct X {
    std::string lane, cat;
    int64_t ts;
  };
  std::map<int64_t, std::vector<X>> by_corr;
  for (const auto& e : events())
    if (e["ph"] == "X" && e.contains("args") && e["args"].contains("correlation"))
      by_corr[e["args"]["correlation"].get<int64_t>()].push_back(
          {test::tokenOf(e["pid"]) + "/" + test::tokenOf(e["tid"]), e["cat"].get<std::string>(), test::usToNs(e["ts"])});
  size_t flow_events = 0, derived = 0;
  std::set<int64_t> derived_ids;
  for (const auto& e : events()) {
    std::string ph = e["ph"];
    if (ph != "s" && ph != "f") continue;
    ++flow_events;
    if (e.value("cat", "") != "ac2g" || e.value("name", "") != "ac2g") continue;
    auto it = by_corr.find(e["id"].get<int64_t>());
    if (it == by_corr.end()) continue;
    bool has_launch = false, has_gpu = false;
    for (const X& x : it->second) has_launch |= isLaunchCat(x.cat), has_gpu |= isGpuCat(x.cat);
    if (!has_launch || !has_gpu) continue;
    std::string lane = test::tokenOf(e["pid"]) + "/" + test::tokenOf(e["tid"]);
    for (const X& x : it->second) {
      if (x.lane == lane && x.ts == test::usToNs(e["ts"]) && (ph == "s" ? isLaunchCat(x.cat) : isGpuCat(x.cat))) {
        ++derived;
        derived_ids.insert(it->first);
        break;
      }
    }
  }
  size_t raw_flow_ends = 0;
  for (const RawEvent& r : trace_.raw_events) raw_flow_ends += (r.phase == 's' || r.phase == 'f');
  EXPECT_EQ(derived + 2 * trace_.flows.size() + raw_flow_ends, flow_events);
  ASSERT_GT(derived, 0u);
  // Each derived id is a launch link with both ends.
  for (int64_t id : derived_ids) {
    const LaunchLink* link = trace_.launchFor(id);
    ASSERT_NE(link, nullptr) << id;
    EXPECT_TRUE(link->launch.has_value()) << id;
    EXPECT_FALSE(link->gpu_ops.empty()) << id;
  }
}

TEST_P(FixtureImport, OtherPhasesAreKeptVerbatim) {
  std::vector<PreciseJson> expected;
  for (const auto& e : events()) {
    std::string ph = e["ph"];
    if (ph != "X" && ph != "s" && ph != "f" && ph != "M") expected.push_back(e);
  }
  std::vector<PreciseJson> actual;
  for (const RawEvent& r : trace_.raw_events)
    if (r.phase != 's' && r.phase != 'f' && r.phase != 'M') actual.push_back(PreciseJson::parse(r.json));
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(actual, expected);
}

TEST_P(FixtureImport, MetadataNamesTheLanes) {
  size_t checked = 0;
  for (const auto& e : events()) {
    if (e["ph"] != "M") continue;
    std::string pid = test::tokenOf(e["pid"]), tid = test::tokenOf(e["tid"]);
    std::string what = e["name"];
    if (what == "thread_name" || what == "thread_sort_index") {
      const Track* t = findTrack(trace_, pid, tid);
      if (!t) continue;
      if (what == "thread_name") EXPECT_EQ(trace_.strings.get(t->thread_name_id), e["args"]["name"].get<std::string>());
      if (what == "thread_sort_index") EXPECT_EQ(t->sort_index, e["args"]["sort_index"].get<int64_t>());
      ++checked;
    } else if (what == "process_name" || what == "process_labels") {
      for (const Track& t : trace_.tracks) {
        if (t.size() == 0 || trace_.strings.get(t.pid_id) != pid) continue;
        if (what == "process_name") EXPECT_EQ(trace_.strings.get(t.process_name_id), e["args"]["name"].get<std::string>());
        if (what == "process_labels") EXPECT_EQ(trace_.strings.get(t.process_labels_id), e["args"]["labels"].get<std::string>());
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 3u);
}

TEST_P(FixtureImport, GpuLanesKnowTheirDeviceAndStream) {
  for (const auto& e : events()) {
    if (e["ph"] != "X" || !isGpuCat(e["cat"])) continue;
    const Track* t = findTrack(trace_, test::tokenOf(e["pid"]), test::tokenOf(e["tid"]));
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->kind, TrackKind::Gpu);
    EXPECT_EQ(t->device, e["args"]["device"].get<int>());
    EXPECT_EQ(t->stream, e["args"]["stream"].get<int64_t>());
  }
}

TEST_P(FixtureImport, TopLevelFieldsAreKept) {
  EXPECT_EQ(trace_.meta.schema_version, json_["schemaVersion"].get<int>());
  EXPECT_EQ(trace_.meta.trace_name, json_.value("traceName", ""));
  ASSERT_EQ(trace_.meta.devices.size(), json_["deviceProperties"].size());
  for (size_t i = 0; i < trace_.meta.devices.size(); ++i) {
    const auto& d = json_["deviceProperties"][i];
    EXPECT_EQ(trace_.meta.devices[i].id, d["id"].get<int>());
    EXPECT_EQ(trace_.meta.devices[i].name, d["name"].get<std::string>());
    EXPECT_EQ(PreciseJson::parse(trace_.meta.devices[i].json), d);
  }
  std::set<std::string> known = {"schemaVersion", "deviceProperties", "baseTimeNanoseconds", "traceEvents", "traceName"};
  std::vector<std::string> expected_keys;
  for (auto it = json_.begin(); it != json_.end(); ++it)
    if (!known.count(it.key())) expected_keys.push_back(it.key());
  std::vector<std::string> keys;
  for (const auto& [k, raw] : trace_.meta.extra_fields) {
    keys.push_back(k);
    EXPECT_EQ(PreciseJson::parse(raw), json_[k]) << k;
  }
  std::sort(keys.begin(), keys.end());  // nlohmann's object is sorted by key
  EXPECT_EQ(keys, expected_keys);
}

TEST_P(FixtureImport, SmallParseWindowsGiveTheSameTrace) {
  for (size_t window : {256u, 1000u, 4096u, 30000u}) {
    ChromeImportOptions options;
    options.window_bytes = window;
    Trace windowed = importChromeTrace(test::fixtureGz(GetParam()), options);
    std::string why;
    EXPECT_TRUE(windowed.sameContentAs(trace_, &why)) << "window " << window << ": " << why;
    EXPECT_EQ(windowed.meta.warnings, trace_.meta.warnings);
  }
}

TEST_P(FixtureImport, PlainJsonAndBareArrayFormsLoad) {
  std::string text = test::fixtureText(GetParam());
  Trace plain = importChromeTraceFromBuffer(text, "plain.json");
  std::string why;
  EXPECT_TRUE(plain.sameContentAs(trace_, &why)) << why;

  // The traceEvents array on its own (Kineto writes it before "traceName").
  size_t open = text.find('[', text.find("\"traceEvents\""));
  size_t close = text.rfind(']');
  ASSERT_LT(open, close);
  Trace from_array = importChromeTraceFromBuffer(text.substr(open, close + 1 - open), "bare.json");
  EXPECT_EQ(from_array.eventCount(), trace_.eventCount());
  ASSERT_EQ(from_array.nonEmptyTrackCount(), trace_.nonEmptyTrackCount());
  for (const Track& t : trace_.tracks) {
    if (t.size() == 0) continue;
    const Track* b = findTrack(from_array, std::string(trace_.strings.get(t.pid_id)), std::string(trace_.strings.get(t.tid_id)));
    ASSERT_NE(b, nullptr);
    // No baseTimeNanoseconds here: times are the bare ts.
    for (size_t i = 0; i < t.size(); ++i) EXPECT_EQ(b->start_ns[i] + trace_.meta.base_time_ns, t.start_ns[i]);
  }
  EXPECT_EQ(from_array.flows.size(), trace_.flows.size());
  EXPECT_EQ(from_array.raw_events.size(), trace_.raw_events.size());
  EXPECT_EQ(from_array.launches().size(), trace_.launches().size());
}

INSTANTIATE_TEST_SUITE_P(Kineto, FixtureImport, ::testing::ValuesIn(test::fixtureNames()));

// ---------------------------------------------------------------------------
// The eager MLP: 3 profiler steps, 5 kernels each.

TEST(ChromeTraceImport, MlpEagerHasFiveKernelsInEachOfThreeSteps) {
  Trace t = importChromeTrace(test::fixture("mlp_eager.json.gz"));
  std::vector<EventRef> steps, kernels;
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti)
    for (uint32_t i = 0; i < t.tracks[ti].size(); ++i) {
      if (t.name({ti, i}).rfind("ProfilerStep#", 0) == 0 && t.tracks[ti].category[i] == Category::UserAnnotation)
        steps.push_back({ti, i});
      if (t.tracks[ti].category[i] == Category::Kernel) kernels.push_back({ti, i});
    }
  ASSERT_EQ(steps.size(), 3u);
  ASSERT_EQ(kernels.size(), 15u);
  for (EventRef s : steps) {
    const Track& st = t.tracks[s.track];
    int in_step = 0;
    for (EventRef k : kernels) {
      const LaunchLink* link = t.launchFor(t.tracks[k.track].correlation[k.index]);
      ASSERT_TRUE(link && link->launch);
      int64_t launch_start = t.tracks[link->launch->track].start_ns[link->launch->index];
      in_step += launch_start >= st.start_ns[s.index] && launch_start < st.end_ns(s.index);
    }
    EXPECT_EQ(in_step, 5) << t.name(s);
  }

  // The same count, derived from the JSON alone.
  PreciseJson j = test::fixtureJson("mlp_eager");
  std::map<int64_t, int64_t> launch_ts;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X" && isLaunchCat(e["cat"]) && e["args"].contains("correlation"))
      launch_ts[e["args"]["correlation"].get<int64_t>()] = test::usToNs(e["ts"]);
  for (const auto& s : j["traceEvents"]) {
    if (s["ph"] != "X" || s["name"].get<std::string>().rfind("ProfilerStep#", 0) != 0) continue;
    int64_t b = test::usToNs(s["ts"]), e = b + test::usToNs(s["dur"]);
    int n = 0;
    for (const auto& k : j["traceEvents"])
      if (k["ph"] == "X" && k["cat"] == "kernel") {
        int64_t ts = launch_ts.at(k["args"]["correlation"].get<int64_t>());
        n += ts >= b && ts < e;
      }
    EXPECT_EQ(n, 5);
  }
}

TEST(ChromeTraceImport, KnownEventTimeIsExactToTheNanosecond) {
  Trace t = importChromeTrace(test::fixture("mlp_eager.json.gz"));
  // "ProfilerStep#2": "ts": 4462643229310.880, "dur": 1591.228 with
  // baseTimeNanoseconds 1790857026000000000 (as a double the ts would be
  // 4462643229310.8798828125).
  bool found = false;
  for (const Track& tr : t.tracks)
    for (size_t i = 0; i < tr.size(); ++i)
      if (t.strings.get(tr.name_id[i]) == "ProfilerStep#2") {
        EXPECT_EQ(tr.start_ns[i], 1790857026000000000 + 4462643229310880);
        EXPECT_EQ(tr.dur_ns[i], 1591228);
        found = true;
      }
  EXPECT_TRUE(found);
}

// ---------------------------------------------------------------------------
// Synthetic traces.

Trace load(const std::string& text, size_t window = ChromeImportOptions{}.window_bytes) {
  ChromeImportOptions o;
  o.window_bytes = window;
  return importChromeTraceFromBuffer(text, "test.json", o);
}

std::string wrap(const std::string& events, const std::string& extra = "") {
  return "{" + extra + "\"traceEvents\": [" + events + "]}";
}

std::string xEvent(const std::string& ts, const std::string& dur = "1", const std::string& more = "") {
  return R"({"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": )" + ts + ", \"dur\": " + dur + more + "}";
}

TEST(ChromeTraceImport, TimestampsInEveryNumberFormAreExact) {
  struct Case {
    std::string ts;
    int64_t ns;
  };
  for (const Case& c : std::vector<Case>{{"1000", 1000000},
                                         {"0", 0},
                                         {"1.5", 1500},
                                         {"9007199254740.993", 9007199254740993},  // not exact as a double
                                         {"4.462643229310880e12", 4462643229310880},
                                         {"4462643229310880E-3", 4462643229310880},
                                         {"1e3", 1000000},
                                         {"0.0004", 0},
                                         {"0.0005", 1},
                                         {"12.3456", 12346},
                                         {"-0", 0}}) {
    Trace t = load(wrap(xEvent(c.ts)));
    ASSERT_EQ(t.eventCount(), 1u) << c.ts;
    EXPECT_EQ(t.tracks[0].start_ns[0], c.ns) << c.ts;
  }
  Trace based = load(wrap(xEvent("2.5", "0.001"), R"("baseTimeNanoseconds": 1700000000000000000, )"));
  EXPECT_EQ(based.tracks[0].start_ns[0], 1700000000000002500);
  EXPECT_EQ(based.tracks[0].dur_ns[0], 1);
}

TEST(ChromeTraceImport, UnknownCategoriesAndPhasesAreKept) {
  std::string counter = R"({"ph": "C", "name": "mem", "pid": 1, "tid": 1, "ts": 5, "args": {"bytes": 12}})";
  std::string odd = R"({"ph": "Q", "name": "odd", "pid": 1, "tid": 1, "ts": 6, "weird": [1, {"x": null}]})";
  std::string text = wrap(R"({"ph": "X", "cat": "my_category", "name": "thing", "pid": 1, "tid": 1, "ts": 1, "dur": 2},)" +
                          counter + ",\n" + odd);
  Trace t = load(text);
  ASSERT_EQ(t.eventCount(), 1u);
  EXPECT_EQ(t.tracks[0].category[0], Category::Other);
  EXPECT_EQ(t.strings.get(t.tracks[0].cat_id[0]), "my_category");
  ASSERT_EQ(t.raw_events.size(), 2u);
  EXPECT_EQ(t.raw_events[0].phase, 'C');
  EXPECT_EQ(t.raw_events[0].json, counter);
  EXPECT_EQ(t.raw_events[0].ts_ns, 5000);
  EXPECT_EQ(t.raw_events[1].phase, 'Q');
  EXPECT_EQ(t.raw_events[1].json, odd);
  EXPECT_EQ(t.strings.get(t.raw_events[1].name_id), "odd");
}

TEST(ChromeTraceImport, BeginEndPairsBecomeCompleteEvents) {
  Trace t = load(wrap(R"({"ph": "B", "name": "outer", "cat": "user_annotation", "pid": 1, "tid": 2, "ts": 10, "args": {"a": 1}},
    {"ph": "B", "name": "inner", "pid": 1, "tid": 2, "ts": 11},
    {"ph": "E", "pid": 1, "tid": 2, "ts": 12.5},
    {"ph": "E", "pid": 1, "tid": 2, "ts": 20},
    {"ph": "E", "pid": 1, "tid": 2, "ts": 30})"));
  ASSERT_EQ(t.eventCount(), 2u);
  const Track& tr = t.tracks[0];
  EXPECT_EQ(t.strings.get(tr.name_id[0]), "outer");
  EXPECT_EQ(tr.start_ns[0], 10000);
  EXPECT_EQ(tr.dur_ns[0], 10000);
  EXPECT_EQ(t.argsJson(tr.args[0]), R"({"a": 1})");
  EXPECT_EQ(t.strings.get(tr.name_id[1]), "inner");
  EXPECT_EQ(tr.dur_ns[1], 1500);
  EXPECT_EQ(tr.depth[1], 1);
  ASSERT_EQ(t.raw_events.size(), 1u);  // the third E has no B
  EXPECT_EQ(t.raw_events[0].phase, 'E');
  ASSERT_EQ(t.meta.warnings.size(), 1u);
  EXPECT_NE(t.meta.warnings[0].find("'E'"), std::string::npos);
}

// ChromeImportOptions::keep_args: only the events it names keep their args;
// the others still fill the columns from theirs, and every args is checked.
bool keepsCommsArgs(std::string_view name) { return name == "record_param_comms"; }

TEST(ChromeTraceImport, ArgsAreKeptForTheNamedEventsOnly) {
  const std::string text = wrap(R"({"ph": "X", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 10, "dur": 5,
      "args": {"External id": 7, "Input Dims": [[2, 3]]}},
    {"ph": "B", "name": "record_param_comms", "pid": 1, "tid": 2, "ts": 20, "args": {"Group size": 2}},
    {"ph": "E", "pid": 1, "tid": 2, "ts": 30},
    {"ph": "X", "name": "kernel", "cat": "kernel", "pid": 0, "tid": 7, "ts": 40, "dur": 5, "args": {"correlation": 9}})");
  ChromeImportOptions o;
  o.keep_args = &keepsCommsArgs;
  for (bool parallel : {true, false}) {
    o.parallel = parallel;
    const Trace t = importChromeTraceFromBuffer(text, "t.json", o);
    const Trace all = importChromeTraceFromBuffer(text, "t.json");
    ASSERT_EQ(t.eventCount(), 3u);
    const Track& cpu = *std::find_if(t.tracks.begin(), t.tracks.end(), [](const Track& tr) { return tr.size() == 2; });
    EXPECT_EQ(t.argsJson(cpu.args[0]), "") << "aten::mm's args are not kept";
    EXPECT_EQ(cpu.external_id[0], 7) << "its columns still are";
    EXPECT_EQ(t.argsJson(cpu.args[1]), R"({"Group size": 2})");
    EXPECT_LT(t.args_text->size(), all.args_text->size());
    for (const Track& tr : t.tracks)
      for (size_t i = 0; i < tr.size(); ++i)
        if (tr.category[i] == Category::Kernel) EXPECT_EQ(tr.correlation[i], 9);
  }
  try {
    importChromeTraceFromBuffer(wrap(R"({"ph": "X", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 10, "dur": 5,
        "args": {"Input Dims": [[2, 3]}})"), "t.json", o);
    ADD_FAILURE() << "malformed args that are not kept were accepted";
  } catch (const TraceImportError&) {
  }
}

TEST(ChromeTraceImport, OtherFlowsBindToTheEnclosingEvents) {
  Trace t = load(wrap(R"(
    {"ph": "X", "cat": "cpu_op", "name": "fwd", "pid": 1, "tid": 1, "ts": 10, "dur": 10},
    {"ph": "X", "cat": "cpu_op", "name": "fwd_child", "pid": 1, "tid": 1, "ts": 12, "dur": 2},
    {"ph": "X", "cat": "cpu_op", "name": "bwd", "pid": 1, "tid": 9, "ts": 50, "dur": 10},
    {"ph": "f", "id": 7, "pid": 1, "tid": 9, "ts": 55, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"},
    {"ph": "s", "id": 7, "pid": 1, "tid": 1, "ts": 15, "cat": "fwdbwd", "name": "fwdbwd"},
    {"ph": "s", "id": 8, "pid": 1, "tid": 1, "ts": 13, "cat": "fwdbwd", "name": "fwdbwd"},
    {"ph": "f", "id": 8, "pid": 1, "tid": 9, "ts": 45, "cat": "fwdbwd", "name": "fwdbwd"},
    {"ph": "s", "id": 9, "pid": 1, "tid": 1, "ts": 100, "cat": "fwdbwd", "name": "fwdbwd"},
    {"ph": "s", "id": "0x1", "pid": 1, "tid": 1, "ts": 11, "cat": "fwdbwd", "name": "fwdbwd"})"));
  ASSERT_EQ(t.flows.size(), 2u);
  // Sorted by where the 's' appears in the file: id 7 then id 8.
  EXPECT_EQ(t.flows[0].id, 7u);
  EXPECT_EQ(t.name(t.flows[0].from), "fwd");  // ts 15: inside fwd, after fwd_child
  EXPECT_EQ(t.name(t.flows[0].to), "bwd");
  EXPECT_EQ(t.flows[0].from_ts_ns, 15000);
  EXPECT_EQ(t.flows[1].id, 8u);
  EXPECT_EQ(t.name(t.flows[1].from), "fwd_child");  // innermost at ts 13
  EXPECT_EQ(t.name(t.flows[1].to), "bwd");           // no "bp": binds to the next slice
  EXPECT_EQ(t.strings.get(t.flows[1].cat_id), "fwdbwd");
  // id 9 points at nothing; "0x1" is not a numeric id: both kept raw.
  ASSERT_EQ(t.raw_events.size(), 2u);
  EXPECT_EQ(t.meta.warnings.size(), 2u);
}

TEST(ChromeTraceImport, StringPidsAndTidsKeyTheirOwnTracks) {
  Trace t = load(wrap(R"({"ph": "X", "cat": "Trace", "name": "span", "pid": "Spans", "tid": "Profiler \"x\"", "ts": 1, "dur": 1},
                         {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 3, "tid": "", "ts": 1, "dur": 1})"));
  ASSERT_EQ(t.nonEmptyTrackCount(), 2u);
  EXPECT_NE(findTrack(t, "\"Spans\"", "\"Profiler \\\"x\\\"\""), nullptr);
  EXPECT_NE(findTrack(t, "3", "\"\""), nullptr);
}

TEST(ChromeTraceImport, WindowCutsInsideArraysAreReadAgain) {
  // One line, commas everywhere: every cut lands on a comma, many inside an
  // event's top-level array, which the window's closing "]}" must not
  // complete.
  std::string events;
  for (int i = 0; i < 60; ++i) {
    events += (i ? "," : "") + std::string(R"({"ph":"X","cat":"cpu_op","name":"op)") + std::to_string(i) +
              R"(","pid":1,"tid":1,"ts":)" + std::to_string(i * 10) + R"(,"dur":5,"stack":[1,2,3,4,5,6,7,8,9,10,11,12]},)" +
              R"({"ph":"i","name":"m","pid":1,"tid":1,"ts":)" + std::to_string(i * 10 + 1) +
              R"(,"stack":[[1,2],[3,4],[5,6],[7,8]],"args":{"a":[1,2,3]}})";
  }
  std::string text = wrap(events);
  Trace whole = load(text);
  ASSERT_EQ(whole.eventCount(), 60u);
  ASSERT_EQ(whole.raw_events.size(), 60u);
  for (size_t window = 256; window < 1200; window += 37) {
    Trace windowed = load(text, window);
    std::string why;
    EXPECT_TRUE(windowed.sameContentAs(whole, &why)) << "window " << window << ": " << why;
    for (size_t k = 0; k < windowed.raw_events.size(); ++k)
      EXPECT_EQ(windowed.raw_events[k].json, whole.raw_events[k].json) << "window " << window;
  }
}

TEST(ChromeTraceImport, HugeValidStringsLoad) {
  std::string name(20u << 20, 'k');
  Trace t = load(wrap(xEvent("1") + ",\n" + R"({"ph": "X", "cat": "kernel", "name": ")" + name +
                      R"(", "pid": 0, "tid": 7, "ts": 2, "dur": 1})" + ",\n" + xEvent("3")),
                 1 << 20);
  ASSERT_EQ(t.eventCount(), 3u);
  bool found = false;
  for (const Track& tr : t.tracks)
    for (size_t i = 0; i < tr.size(); ++i) found |= t.strings.get(tr.name_id[i]).size() == name.size();
  EXPECT_TRUE(found);
}

// ---------------------------------------------------------------------------
// Malformed input: a TraceImportError that says where, never a crash.

std::string importError(const std::string& text, size_t window = ChromeImportOptions{}.window_bytes) {
  try {
    load(text, window);
  } catch (const TraceImportError& e) {
    return e.what();
  }
  return "";
}

void expectError(const std::string& text, const std::vector<std::string>& parts, size_t window = 1 << 20) {
  std::string msg = importError(text, window);
  ASSERT_FALSE(msg.empty()) << "no error for: " << text.substr(0, 200);
  EXPECT_EQ(msg.rfind("test.json: ", 0), 0u) << msg;
  for (const std::string& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
}

TEST(ChromeTraceImportErrors, EmptyOrNotJson) {
  expectError("", {"empty"});
  expectError("  \n\t ", {"only whitespace"});
  expectError("hello", {"byte 0", "expected '{' or '['"});
  expectError("<html></html>", {"byte 0"});
  expectError("{}", {"no \"traceEvents\""});
  expectError(R"({"traceEvents": 5})", {"\"traceEvents\" is a number, expected an array", "byte 16"});
  expectError(R"({"traceEvents": []} trailing)", {"byte"});
  expectError(R"({"traceEvents": [] "x": 1})", {"byte"});
  expectError(R"([{"ph": "X", "pid": 1, "tid": 1, "ts": 1, "dur": 1} {"ph": "i"}])", {"byte"});
  expectError(std::string("\x1f\x8b\x08\x00garbage", 11), {"gzip"});
}

TEST(ChromeTraceImportErrors, WrongFieldTypesNameTheEventAndField) {
  std::string ok = xEvent("1");
  std::string text = wrap(ok + "," + xEvent("2", "\"5\""));
  size_t second = text.find("{\"ph\"", text.find("{\"ph\"") + 1);
  expectError(text, {"traceEvents[1] (byte " + std::to_string(second) + ")", "'dur' is a string, expected a number"});
  expectError(wrap(ok + "," + xEvent("\"2\"")), {"traceEvents[1]", "'ts' is a string, expected a number"});
  expectError(wrap(R"({"ph": "X", "name": 5, "pid": 1, "tid": 1, "ts": 1, "dur": 1})"),
              {"traceEvents[0]", "'name' is a number, expected a string"});
  expectError(wrap(R"({"ph": "X", "pid": {"a": 1}, "tid": 1, "ts": 1, "dur": 1})"),
              {"traceEvents[0]", "'pid' is an object, expected a number or a string"});
  expectError(wrap(R"({"ph": "X", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": [1, 2]})"),
              {"'args' is an array, expected an object"});
  expectError(wrap(R"({"pid": 1, "tid": 1, "ts": 1, "dur": 1})"), {"traceEvents[0]", "no 'ph'"});
  expectError(wrap(R"({"ph": "X", "pid": 1, "tid": 1, "ts": 1})"), {"no 'dur'"});
  expectError(wrap(ok + ", 42"), {"traceEvents[1]", "is a number, expected an object"});
  expectError(wrap(ok, R"("baseTimeNanoseconds": "x", )"), {"\"baseTimeNanoseconds\" is a string"});
  expectError(wrap(ok, R"("baseTimeNanoseconds": -5, )"), {"\"baseTimeNanoseconds\" is negative"});
}

TEST(ChromeTraceImportErrors, AbsurdTimesAreRefused) {
  expectError(wrap(xEvent("1e30")), {"traceEvents[0]", "'ts' is out of range"});
  expectError(wrap(xEvent("-5")), {"'ts' is negative"});
  expectError(wrap(xEvent("5", "-1")), {"'dur' is negative"});
  expectError(wrap(xEvent("4611686018427387", "4611686018427387")), {"out of range"});
  expectError(wrap(xEvent("1"), R"("baseTimeNanoseconds": 9000000000000000000, )"), {"\"baseTimeNanoseconds\" is out of range"});
}

TEST(ChromeTraceImportErrors, DeepNestingIsRefusedWithoutOverflowingTheStack) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  expectError(wrap(xEvent("1", "1", ", \"args\": {\"x\": " + deep + "}")), {"traceEvents[0]", "nesting deeper than"});
  expectError(wrap(xEvent("1"), "\"extra\": " + deep + ", "), {"nesting deeper than"});
  std::string deep_objects;
  for (int i = 0; i < 50000; ++i) deep_objects += "{\"a\":";
  deep_objects += "1" + std::string(50000, '}');
  expectError(wrap(xEvent("1", "1", ", \"args\": " + deep_objects)), {"nesting deeper than"});
}

TEST(ChromeTraceImportErrors, InvalidUtf8IsLocated) {
  std::string head = R"({"traceEvents": [{"ph": "X", "name": "ab)";
  std::string text = head + "\xff" + R"(", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})";
  expectError(text, {"byte " + std::to_string(head.size()), "invalid UTF-8"});
  // Same far into a file parsed in windows.
  std::string many;
  for (int i = 0; i < 2000; ++i) many += (i ? ",\n" : "") + xEvent(std::to_string(i));
  std::string prefix = "{\"traceEvents\": [" + many + ",\n" + R"({"ph": "X", "name": "x)";
  text = prefix + "\xc3\x28" + R"(", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})";
  expectError(text, {"byte " + std::to_string(prefix.size()), "invalid UTF-8"}, 4096);
}

TEST(ChromeTraceImportErrors, UnterminatedHugeStringIsRefused) {
  std::string text = wrap(xEvent("1")) ;
  text.pop_back();
  text.pop_back();
  text += ", {\"ph\": \"X\", \"name\": \"" + std::string(10u << 20, 'x');
  expectError(text, {"never closed"}, 1 << 20);
}

TEST(ChromeTraceImportErrors, TruncatedFilesFailAtEveryCut) {
  std::string text = test::fixtureText("mlp_eager");
  std::vector<size_t> cuts = {10, 100, 700, 1500, 5000, 20000, 33333, 50000};
  for (size_t k = 1; k <= 40; ++k) cuts.push_back(text.size() - k);
  for (size_t cut : cuts) {
    for (size_t window : {size_t(1) << 20, size_t(600)}) {
      std::string msg = importError(text.substr(0, cut), window);
      EXPECT_FALSE(msg.empty()) << "cut " << cut << " window " << window;
      EXPECT_NE(msg.find("byte"), std::string::npos) << msg;
    }
  }
  // Truncated gzip.
  std::string gz;
  {
    std::FILE* f = std::fopen(test::fixture("mlp_eager.json.gz").c_str(), "rb");
    ASSERT_NE(f, nullptr);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) gz.append(buf, n);
    std::fclose(f);
  }
  for (size_t cut : {size_t(5), size_t(100), gz.size() / 2, gz.size() - 3}) {
    std::string msg = importError(gz.substr(0, cut));
    EXPECT_NE(msg.find("gzip"), std::string::npos) << "cut " << cut << ": " << msg;
  }
}

TEST(ChromeTraceImportErrors, RandomCorruptionNeverCrashes) {
  std::string text = test::fixtureText("linear_eager");
  std::mt19937 rng(1234);
  const std::string alphabet = "{}[]\",:0123456789.eE-+ tfnulx\\\n\x01\xff\xc3";
  int loaded = 0, refused = 0;
  for (int round = 0; round < 400; ++round) {
    std::string t = text;
    int edits = 1 + int(rng() % 3);
    for (int k = 0; k < edits; ++k) {
      size_t pos = rng() % t.size();
      switch (rng() % 3) {
        case 0: t[pos] = alphabet[rng() % alphabet.size()]; break;
        case 1: t.erase(pos, 1 + rng() % 8); break;
        default: t.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
      }
    }
    size_t window = round % 2 ? 512 : (1 << 20);
    try {
      load(t, window);
      ++loaded;
    } catch (const TraceImportError& e) {
      ++refused;
      EXPECT_NE(std::string(e.what()).find("byte"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(loaded + refused, 400);
  EXPECT_GT(refused, 100);
}

TEST(ChromeTraceImportErrors, MissingFileSaysSo) {
  try {
    importChromeTrace("/nonexistent/dir/trace.json");
    FAIL() << "no error";
  } catch (const TraceImportError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos);
  }
}

}  // namespace
}  // namespace fuselab
