// The importer's two ways of running (ChromeImportOptions::parallel: a reader
// thread parses windows while the caller's thread commits them, or all on one
// thread) give the same trace, the same export and the same first error.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "profiling/trace/ChromeTraceExport.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/BuildPaths.h"
#include "tests/support/FixtureJson.h"
#include "tests/support/ImportMode.h"

namespace fuselab {
namespace {

using test::importMode;

// Both ways must agree, content and export byte for byte.
void expectSameBothWays(const std::string& text, size_t window, const std::string& what) {
  Trace seq = importChromeTraceFromBuffer(text, "test.json", importMode(false, window));
  Trace par = importChromeTraceFromBuffer(text, "test.json", importMode(true, window));
  std::string why;
  EXPECT_TRUE(par.sameContentAs(seq, &why)) << what << ", window " << window << ": " << why;
  EXPECT_EQ(par.meta.warnings, seq.meta.warnings) << what << ", window " << window;
  EXPECT_EQ(exportChromeTraceToString(par), exportChromeTraceToString(seq)) << what << ", window " << window;
}

// A trace of every kind of element the importer treats differently, `n`
// rounds of them, with strings holding commas, newlines and escapes (cuts at
// a comma inside a string must be retried) and top-level fields on both sides
// of traceEvents.
std::string syntheticTrace(int n) {
  std::string s = "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}],\n\"traceEvents\": [\n";
  s += R"({"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "host, \"main\""}},)" "\n";
  s += R"({"ph": "M", "name": "thread_sort_index", "pid": 1, "tid": 2, "args": {"sort_index": 3}},)" "\n";
  for (int i = 0; i < n; ++i) {
    std::string t = std::to_string(1000 + i * 50), c = std::to_string(i);
    s += R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm, step\n)" + c + R"(", "pid": 1, "tid": 2, "ts": )" + t +
         R"(.125, "dur": 20.5, "args": {"Input Dims": [[8, 16], [16, 4]], "note": "a,b\u00e9\"", "deep": {"x": [1, {"y": null}, true]}}},)" "\n";
    s += R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": )" + t +
         R"(.5, "dur": 3, "args": {"correlation": )" + c + R"(, "External id": )" + c + "}},\n";
    s += R"({"ph": "X", "cat": "kernel", "name": "gemm_)" + std::to_string(i % 7) + R"(", "pid": 0, "tid": 7, "ts": )" + t +
         R"(.75, "dur": 10, "args": {"correlation": )" + c + R"(, "device": 0, "stream": 7, "grid": [1, 2, 3]}},)" "\n";
    s += R"({"ph": "s", "id": )" + c + R"(, "pid": 1, "tid": 2, "ts": )" + t + R"(.5, "cat": "ac2g", "name": "ac2g"},)" "\n";
    s += R"({"ph": "f", "id": )" + c + R"(, "pid": 0, "tid": 7, "ts": )" + t + R"(.75, "cat": "ac2g", "name": "ac2g", "bp": "e"},)" "\n";
    s += R"({"ph": "B", "name": "region", "cat": "user_annotation", "pid": 1, "tid": 3, "ts": )" + t + "},\n";
    s += R"({"ph": "E", "pid": 1, "tid": 3, "ts": )" + std::to_string(1040 + i * 50) + R"(, "args": {"k": "v"}},)" "\n";
    s += R"({"ph": "i", "name": "mark", "pid": 1, "tid": 2, "ts": )" + t + R"(, "s": "t", "custom": [1, 2]},)" "\n";
    s += R"({"ph": "X", "cat": "odd_category", "name": "x", "pid": "p\tq", "tid": "t", "ts": )" + t + R"(, "dur": 1, "extra": 5},)" "\n";
  }
  s += R"({"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "python"}})" "\n";
  s += "],\n\"baseTimeNanoseconds\": 1700000000000000000, \"traceName\": \"synthetic\"}\n";
  return s;
}

std::string errorOf(const std::string& text, bool parallel, size_t window, ImportProgress* progress = nullptr) {
  try {
    importChromeTraceFromBuffer(text, "test.json", importMode(parallel, window, progress));
  } catch (const TraceImportError& e) {
    return e.what();
  }
  return "";
}

// The same message both ways, at every window size; returns it.
std::string sameErrorBothWays(const std::string& text, const std::string& what) {
  std::string first;
  for (size_t window : {300u, 4096u, 1u << 20}) {
    std::string seq = errorOf(text, false, window), par = errorOf(text, true, window);
    EXPECT_FALSE(seq.empty()) << what << ": no error";
    EXPECT_EQ(par, seq) << what << ", window " << window;
    if (first.empty()) first = seq;
    EXPECT_EQ(seq, first) << what << ": the message depends on the window size";
  }
  return first;
}

// Replaces the `nth` occurrence (0-based) of `from`.
std::string replaceNth(std::string s, const std::string& from, const std::string& to, int nth) {
  size_t at = 0;
  for (int i = 0; i <= nth; ++i) {
    at = s.find(from, i ? at + 1 : 0);
    if (at == std::string::npos) throw std::runtime_error("no occurrence " + std::to_string(nth) + " of " + from);
  }
  return s.replace(at, from.size(), to);
}

TEST(ParallelImport, FixturesGiveTheSameTraceBothWays) {
  std::vector<std::filesystem::path> files;
  for (const std::string& name : test::fixtureNames()) files.push_back(test::fixtureGz(name));
  auto multirank = std::filesystem::path(fuselab::build_paths::fixturesDir()).parent_path() / "kineto-multirank-hta";
  for (const char* rank : {"rank-0.json.gz", "rank-1.json.gz"}) files.push_back(multirank / rank);
  for (const auto& file : files) {
    ASSERT_TRUE(std::filesystem::exists(file)) << file;
    std::string text = test::gunzipFile(file);
    for (size_t window : {1000u, 65536u, 8u << 20}) expectSameBothWays(text, window, file.filename().string());
    // From the file (gzip inflated by the stream's thread: three threads).
    Trace seq = importChromeTrace(file, importMode(false, 65536));
    Trace par = importChromeTrace(file, importMode(true, 65536));
    EXPECT_EQ(exportChromeTraceToString(par), exportChromeTraceToString(seq)) << file;
  }
}

TEST(ParallelImport, AManyWindowTraceGivesTheSameTraceBothWays) {
  std::string text = syntheticTrace(400);  // ~400 kB: over a thousand windows of 300 bytes
  for (size_t window : {256u, 300u, 1000u, 4096u, 65536u}) expectSameBothWays(text, window, "synthetic");
  Trace t = importChromeTraceFromBuffer(text, "test.json", importMode(true, 300));
  EXPECT_EQ(t.eventCount(), 400u * 5);  // X cpu_op, launch, kernel, odd category, B/E
  EXPECT_NE(t.launchFor(399), nullptr);  // its ac2g flows bound launch to kernel
  EXPECT_TRUE(t.meta.warnings.size() == 1 && t.meta.warnings[0].find("'extra'") != std::string::npos)
      << (t.meta.warnings.empty() ? "no warning" : t.meta.warnings[0]);
  EXPECT_EQ(t.meta.trace_name, "synthetic");
}

ImportWindowStats statsOf(const std::string& text, size_t window) {
  ImportWindowStats stats;
  ChromeImportOptions o = importMode(true, window);
  o.stats = &stats;
  importChromeTraceFromBuffer(text, "test.json", o);
  return stats;
}

TEST(ParallelImport, MiddleWindowsAreReadAheadOnTwoThreads) {
  const std::string text = syntheticTrace(400);
  for (size_t window : {1000u, 4096u}) {
    ImportWindowStats stats = statsOf(text, window);
    EXPECT_GT(stats.read_ahead, stats.windows * 3 / 4) << "window " << window << ": " << stats.read_ahead << " of "
                                                       << stats.windows << " windows read ahead";
    EXPECT_EQ(stats.ahead_failures, 0u) << "window " << window;
  }
  // The same events as a top-level array.
  std::string array = "[\n" + text.substr(text.find("{\"ph\"")) ;
  array = array.substr(0, array.rfind("],")) + "]\n";
  Trace object_form = importChromeTraceFromBuffer(text, "test.json", importMode(false, 1u << 30));
  for (size_t window : {1000u, 4096u}) {
    expectSameBothWays(array, window, "top-level array");
    EXPECT_GT(statsOf(array, window).read_ahead, 0u) << "window " << window;
    EXPECT_EQ(importChromeTraceFromBuffer(array, "test.json", importMode(true, window)).eventCount(), object_form.eventCount());
  }
}

TEST(ParallelImport, CutsThatAreNotBetweenEventsAreCaughtAndReadAgain) {
  // Args holding arrays of objects printed over lines: their "},\n{" look
  // like boundaries between events.
  std::string text = "{\"traceEvents\": [\n";
  for (int i = 0; i < 1000; ++i) {
    std::string t = std::to_string(1000 + i * 10);
    // Names of varied length, so that the cuts fall on every line.
    text += R"({"ph": "X", "cat": "cpu_op", "name": "op)" + std::string(i % 37, 'x') + R"(", "pid": 1, "tid": 2, "ts": )" + t +
            R"(, "dur": 5, "args": {"list": [{"a": 1},)" "\n" R"(  {"b": [{"c": 2},)" "\n" R"(  {"d": 3}]}]}},)" "\n";
  }
  text += R"({"ph": "X", "name": "end", "pid": 1, "tid": 2, "ts": 9, "dur": 1})" "\n]}\n";
  for (size_t window : {300u, 1000u, 4096u}) {
    expectSameBothWays(text, window, "args over lines");
    ImportWindowStats stats = statsOf(text, window);
    EXPECT_GT(stats.ahead_failures, 0u) << "window " << window << ": no cut inside args was tried; " << stats.read_ahead
                                        << " of " << stats.windows << " windows read ahead";
  }
  EXPECT_EQ(importChromeTraceFromBuffer(text, "test.json", importMode(true, 1000)).eventCount(), 1001u);
}

TEST(ParallelImport, MalformedInputGivesTheSameErrorWithItsLocation) {
  const std::string text = syntheticTrace(200);
  std::string msg = sameErrorBothWays(replaceNth(text, "\"dur\": 20.5", "\"dur\": 2.0.5", 150), "malformed number");
  EXPECT_NE(msg.find("test.json: traceEvents[1352] (byte "), std::string::npos) << msg;
  EXPECT_NE(msg.find("malformed number"), std::string::npos) << msg;

  // Found while reading the fields (the reader's side).
  msg = sameErrorBothWays(replaceNth(text, "{\"ph\": \"i\"", "[1, 2], {\"ph\": \"i\"", 170), "not an object");
  EXPECT_EQ(msg.find("test.json: traceEvents[1539] (byte "), 0u) << msg;
  EXPECT_NE(msg.find("is an array, expected an object"), std::string::npos) << msg;

  // Found while committing (the builder's side).
  msg = sameErrorBothWays(replaceNth(text, "\"dur\": 3,", "\"dur\": \"3\",", 120), "string duration");
  EXPECT_NE(msg.find("test.json: traceEvents[1083] (byte "), std::string::npos) << msg;
  EXPECT_NE(msg.find("'dur' is a string, expected a number"), std::string::npos) << msg;

  // A commit error before a syntax error: the first one in the file wins,
  // though the reader has already met the second when it is committed.
  std::string both = replaceNth(replaceNth(text, "\"dur\": 3,", "\"dur\": \"3\",", 20), "\"dur\": 20.5", "\"dur\": 2.0.5", 190);
  msg = sameErrorBothWays(both, "commit error first");
  EXPECT_NE(msg.find("test.json: traceEvents[183] (byte "), std::string::npos) << msg;

  msg = sameErrorBothWays(text.substr(0, text.size() * 7 / 10), "truncated");
  EXPECT_NE(msg.find("(end of file)"), std::string::npos) << msg;

  msg = sameErrorBothWays(replaceNth(text, "aten::mm", "aten::\xff\xfe", 160), "invalid UTF-8");
  EXPECT_NE(msg.find("invalid UTF-8"), std::string::npos) << msg;
}

TEST(ParallelImport, CancelStopsBothWays) {
  const std::string text = syntheticTrace(300);
  for (bool parallel : {false, true}) {
    ImportProgress progress;
    progress.cancel = true;
    try {
      importChromeTraceFromBuffer(text, "test.json", importMode(parallel, 1000, &progress));
      FAIL() << "a cancelled import returned a trace (parallel " << parallel << ")";
    } catch (const TraceImportCancelled& e) {
      EXPECT_EQ(std::string(e.what()), "test.json: cancelled");
    }
  }
}

}  // namespace
}  // namespace fuselab
