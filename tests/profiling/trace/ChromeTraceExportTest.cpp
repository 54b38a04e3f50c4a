#include "profiling/trace/ChromeTraceExport.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>

#include "profiling/trace/AtomicFile.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/Gzip.h"
#include "tests/support/FixtureJson.h"

namespace fuselab {
namespace {

using test::PreciseJson;

std::string readBytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class FixtureRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureRoundTrip, ExportThenImportGivesAnEqualTrace) {
  Trace original = importChromeTrace(test::fixtureGz(GetParam()));
  auto dir = test::scratchDir("FixtureRoundTrip_" + GetParam());
  for (std::string name : {"out.json", "out.json.gz"}) {
    exportChromeTrace(original, dir / name);
    Trace again = importChromeTrace(dir / name);
    std::string why;
    EXPECT_TRUE(again.sameContentAs(original, &why)) << name << ": " << why;
    EXPECT_TRUE(original.sameContentAs(again, &why)) << name << ": " << why;
    EXPECT_EQ(again.meta.warnings, original.meta.warnings) << name;
  }
  EXPECT_TRUE(looksGzipped(readBytes(dir / "out.json.gz")));
  EXPECT_FALSE(looksGzipped(readBytes(dir / "out.json")));
  // Both files hold the same text.
  EXPECT_EQ(test::gunzipFile(dir / "out.json.gz"), readBytes(dir / "out.json"));
}

TEST_P(FixtureRoundTrip, ExportIsStable) {
  Trace original = importChromeTrace(test::fixtureGz(GetParam()));
  std::string first = exportChromeTraceToString(original);
  Trace again = importChromeTraceFromBuffer(first, "first.json");
  EXPECT_EQ(exportChromeTraceToString(again), first);
  // Parsed in small windows, the exported text gives the same trace too.
  ChromeImportOptions small;
  small.window_bytes = 700;
  Trace windowed = importChromeTraceFromBuffer(first, "first.json", small);
  std::string why;
  EXPECT_TRUE(windowed.sameContentAs(again, &why)) << why;
}

TEST_P(FixtureRoundTrip, OutputIsKinetoDialect) {
  Trace trace = importChromeTrace(test::fixtureGz(GetParam()));
  PreciseJson source = test::fixtureJson(GetParam());
  std::string text = exportChromeTraceToString(trace);
  PreciseJson out = PreciseJson::parse(text);
  EXPECT_EQ(out["schemaVersion"], source["schemaVersion"]);
  EXPECT_EQ(out["deviceProperties"], source["deviceProperties"]);
  EXPECT_EQ(out["baseTimeNanoseconds"], source["baseTimeNanoseconds"]);
  EXPECT_EQ(out["traceName"], source["traceName"]);
  for (auto it = source.begin(); it != source.end(); ++it)
    if (it.key() != "traceEvents") EXPECT_EQ(out[it.key()], it.value()) << it.key();

  // The same complete events, field by field (args verbatim).
  std::multiset<PreciseJson> x_in, x_out;
  for (const auto& e : source["traceEvents"])
    if (e["ph"] == "X") x_in.insert(e);
  for (const auto& e : out["traceEvents"])
    if (e["ph"] == "X") x_out.insert(e);
  EXPECT_TRUE(x_out == x_in);

  // ts/dur written with exactly three decimals.
  std::regex number_field(R"re("(ts|dur)": (-?[0-9.eE+-]+))re");
  size_t checked = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number_field); it != std::sregex_iterator(); ++it) {
    std::string v = (*it)[2];
    size_t dot = v.find('.');
    bool verbatim_raw = dot == std::string::npos || v.size() - dot - 1 != 3;
    if (!verbatim_raw) ++checked;
  }
  EXPECT_GT(checked, trace.eventCount());

  // One ac2g s per launch link with GPU ops and one f ("bp":"e") per op,
  // id = correlation, each at its event's start.
  std::map<int64_t, int> starts, finishes;
  for (const auto& e : out["traceEvents"]) {
    if (e["ph"] == "s" && e["cat"] == "ac2g") ++starts[e["id"].get<int64_t>()];
    if (e["ph"] == "f" && e["cat"] == "ac2g") {
      EXPECT_EQ(e["bp"], "e");
      ++finishes[e["id"].get<int64_t>()];
    }
  }
  size_t links = 0;
  for (const LaunchLink& l : trace.launches()) {
    if (!l.launch || l.gpu_ops.empty()) continue;
    ++links;
    EXPECT_GE(starts[l.correlation], 1) << l.correlation;
    EXPECT_GE(finishes[l.correlation], int(l.gpu_ops.size())) << l.correlation;
  }
  EXPECT_GT(links, 0u);

  // Metadata names every lane.
  std::set<std::pair<std::string, std::string>> named;
  for (const auto& e : out["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") named.insert({test::tokenOf(e["pid"]), test::tokenOf(e["tid"])});
  for (const Track& t : trace.tracks)
    if (t.size() && t.thread_name_id)
      EXPECT_TRUE(named.count({std::string(trace.strings.get(t.pid_id)), std::string(trace.strings.get(t.tid_id))}));
}

INSTANTIATE_TEST_SUITE_P(Kineto, FixtureRoundTrip, ::testing::ValuesIn(test::fixtureNames()));

// ---------------------------------------------------------------------------
// A trace built in memory, as a live capture does: no source args.

Trace liveLikeTrace() {
  Trace t;
  t.meta.base_time_ns = 1700000000000000000;
  t.meta.trace_name = "live capture";
  t.meta.devices.push_back(DeviceProperties{0, "NVIDIA H100 80GB HBM3", ""});
  uint32_t cpu = t.trackFor("4242", "4242");
  uint32_t gpu = t.trackFor("0", "7");
  t.tracks[cpu].process_name_id = t.strings.intern("fuselab");
  t.tracks[cpu].thread_name_id = t.strings.intern("main thread");
  t.tracks[gpu].thread_name_id = t.strings.intern("stream 7");
  t.tracks[gpu].device = 0;
  t.tracks[gpu].stream = 7;
  auto ev = [&](int64_t start, int64_t dur, std::string_view name, Category c, int64_t corr, int64_t ext) {
    Trace::NewEvent e;
    e.start_ns = t.meta.base_time_ns + start;
    e.dur_ns = dur;
    e.name_id = t.strings.intern(name);
    e.cat_id = t.strings.intern(categoryName(c));
    e.category = c;
    e.correlation = corr;
    e.external_id = ext;
    return e;
  };
  t.append(cpu, ev(1000, 50000, "ProfilerStep#0", Category::UserAnnotation, -1, 1));
  t.append(cpu, ev(2001, 30000, "aten::mm", Category::CpuOp, -1, 2));
  t.append(cpu, ev(3003, 4567, "cuLaunchKernelEx", Category::CudaDriver, 77, 2));
  t.append(gpu, ev(9009, 12345, "nvjet_sm90_tst_\"quoted\"\\back\nslash\t\x01 é 🚀", Category::Kernel, 77, 2));
  t.append(cpu, ev(40000, 10, "cudaGraphLaunch", Category::CudaRuntime, 78, -1));
  t.append(gpu, ev(41000, 100, "graph_kernel_a", Category::Kernel, 78, -1));
  t.append(gpu, ev(41200, 100, "graph_kernel_b", Category::Kernel, 78, -1));
  Trace::NewEvent with_args = ev(45000, 1, "aten::add", Category::CpuOp, -1, 3);
  with_args.args = t.addArgs(R"({"Input Dims": [[2, 3]], "External id": 3})");
  t.append(cpu, with_args);
  t.finalize();
  return t;
}

TEST(ChromeTraceExport, LiveCaptureRoundTripsAndKeepsLaunchLinks) {
  Trace live = liveLikeTrace();
  std::string text = exportChromeTraceToString(live);
  PreciseJson j = PreciseJson::parse(text);  // valid JSON, escapes included
  Trace again = importChromeTraceFromBuffer(text, "live.json");
  std::string why;
  EXPECT_TRUE(again.sameContentAs(live, &why)) << why;
  ASSERT_NE(again.launchFor(78), nullptr);
  EXPECT_EQ(again.launchFor(78)->gpu_ops.size(), 2u);
  // Args were synthesised from the columns where the event had none.
  bool kernel_seen = false;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] != "X" || e["cat"] != "kernel" || e["args"]["correlation"] != 77) continue;
    kernel_seen = true;
    EXPECT_EQ(e["args"]["device"], 0);
    EXPECT_EQ(e["args"]["stream"], 7);
    EXPECT_EQ(e["args"]["External id"], 2);
    EXPECT_EQ(e["name"], "nvjet_sm90_tst_\"quoted\"\\back\nslash\t\x01 é 🚀");
  }
  EXPECT_TRUE(kernel_seen);
  EXPECT_NE(text.find("\"ts\": 9.009, \"dur\": 12.345"), std::string::npos);
  // The event that had args keeps exactly them.
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X" && e["name"] == "aten::add") EXPECT_EQ(e["args"], PreciseJson::parse(R"({"Input Dims": [[2, 3]], "External id": 3})"));
}

TEST(ChromeTraceExport, EventsBeforeTheBaseLowerIt) {
  Trace live = liveLikeTrace();
  live.meta.base_time_ns += 5000;  // the first event now starts 4 us before the base
  std::string text = exportChromeTraceToString(live);
  Trace again = importChromeTraceFromBuffer(text, "lowered.json");
  EXPECT_LE(again.meta.base_time_ns, live.tracks[0].start_ns.front());
  EXPECT_EQ(again.beginNs(), live.beginNs());
  EXPECT_EQ(again.endNs(), live.endNs());
}

TEST(ChromeTraceExport, NonJsonTrackTokensAreWrittenAsStrings) {
  Trace t;
  uint32_t tr = t.trackFor("Spans", "Profiler");
  Trace::NewEvent e;
  e.start_ns = 10;
  e.dur_ns = 5;
  e.name_id = t.strings.intern("span");
  t.append(tr, e);
  t.finalize();
  std::string text = exportChromeTraceToString(t);
  PreciseJson j = PreciseJson::parse(text);
  bool found = false;
  for (const auto& ev : j["traceEvents"])
    if (ev["ph"] == "X") found = ev["pid"] == "Spans" && ev["tid"] == "Profiler";
  EXPECT_TRUE(found);
  Trace again = importChromeTraceFromBuffer(text, "tokens.json");
  EXPECT_EQ(again.eventCount(), 1u);
}

TEST(ChromeTraceExport, OtherFlowsAndRawEventsRoundTrip) {
  std::string src = R"({"baseTimeNanoseconds": 1000000, "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "fwd", "pid": 1, "tid": 1, "ts": 10, "dur": 10},
    {"ph": "X", "cat": "cpu_op", "name": "fwd_child", "pid": 1, "tid": 1, "ts": 10, "dur": 2},
    {"ph": "X", "cat": "cpu_op", "name": "bwd", "pid": 1, "tid": 9, "ts": 50, "dur": 10},
    {"ph": "s", "id": 7, "pid": 1, "tid": 1, "ts": 15, "cat": "fwdbwd", "name": "fwdbwd"},
    {"ph": "f", "id": 7, "pid": 1, "tid": 9, "ts": 55, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"},
    {"ph": "s", "id": 8, "pid": 1, "tid": 1, "ts": 30, "cat": "fwdbwd", "name": "fwdbwd"},
    {"ph": "i", "name": "marker", "pid": 1, "tid": 1, "ts": 12, "s": "t"},
    {"ph": "C", "name": "ctr", "pid": 1, "ts": 13, "args": {"v": 1.5}}
  ]})";
  Trace a = importChromeTraceFromBuffer(src, "flows.json");
  ASSERT_EQ(a.flows.size(), 1u);
  EXPECT_EQ(a.name(a.flows[0].from), "fwd");  // ts 15 is past fwd_child
  std::string text = exportChromeTraceToString(a);
  Trace b = importChromeTraceFromBuffer(text, "again.json");
  std::string why;
  EXPECT_TRUE(b.sameContentAs(a, &why)) << why;
  EXPECT_EQ(b.meta.warnings, a.meta.warnings);
}

TEST(ChromeTraceExport, GzipOptionAndUnwritablePaths) {
  Trace live = liveLikeTrace();
  auto dir = test::scratchDir("ChromeTraceExport_Gzip");
  exportChromeTrace(live, dir / "forced.json", ExportOptions{.gzip = true});
  EXPECT_TRUE(looksGzipped(readBytes(dir / "forced.json")));
  std::string why;
  EXPECT_TRUE(importChromeTrace(dir / "forced.json").sameContentAs(live, &why)) << why;

  EXPECT_THROW(exportChromeTrace(live, dir / "missing" / "sub" / "x.json"), FileWriteError);
  // A failed export (the target is a directory) leaves the target as it was.
  std::filesystem::create_directories(dir / "taken.json");
  writeFileAtomically(dir / "taken.json" / "inside", "old");
  EXPECT_THROW(exportChromeTrace(live, dir / "taken.json"), FileWriteError);
  EXPECT_EQ(readBytes(dir / "taken.json" / "inside"), "old");
}

}  // namespace
}  // namespace fuselab
