// Where the importer cuts its parse windows: newlines before commas, so that
// commas inside strings (kernel names) never exhaust the attempts; in text
// without newlines, commas found outside strings.
#include "profiling/trace/WindowCut.h"

#include <gtest/gtest.h>

#include <string>

#include "profiling/trace/ChromeTraceImport.h"

namespace fuselab::chrome_import {
namespace {

constexpr size_t npos = std::string_view::npos;

TEST(WindowCut, NewlinesComeBeforeCommasInsideStrings) {
  // The limit falls inside a name with many commas; a newline precedes it.
  std::string name = "void k<";
  for (int i = 0; i < 20; ++i) name += "int, ";
  std::string text = std::string(100, ' ') + "{\"a\": 1},\n{\"name\": \"" + name;
  size_t newline = text.find('\n');
  for (int attempt : {0, 1}) {
    size_t cut = windowCut(text, 50, attempt);
    if (attempt == 0) EXPECT_EQ(cut, newline);
    else EXPECT_EQ(text[cut], ',') << "then the commas, from the end back";
  }
}

TEST(WindowCut, WithoutNewlinesTheShallowestCommaOutsideStringsFirst) {
  // JSON on one line: the cut skips the commas of the last name and of the
  // last event's array, then come the commas from the end back.
  std::string text = std::string(60, ' ') + R"({"a": [1, 2]}, {"b": [3, 4], "name": "k<int, float>)";
  EXPECT_EQ(windowCut(text, 50, 0), text.find("}, {") + 1);
  EXPECT_EQ(windowCut(text, 50, 1), text.rfind(','));
  EXPECT_EQ(windowCut(std::string(60, ' ') + "[1,2,3,4]", 50, 4), npos) << "three commas, one of them first";
}

TEST(WindowCut, OnlyTheSecondHalfOfTheLimitCounts) {
  std::string text = "\n,," + std::string(100, ' ');
  EXPECT_EQ(windowCut(text, 2, 0), npos) << "candidates must lie past min_len";
  EXPECT_EQ(windowCut(text, 0, 0), 2u) << "not the newline at 0 (an empty window): the last comma";
  EXPECT_EQ(windowCut("ab,c", 1, 0), 2u);
}

TEST(WindowCut, ElementBoundaryIsACommaBetweenObjectsAcrossANewline) {
  // The last such comma past min_len, whatever whitespace surrounds it.
  std::string text = "[{\"a\": 1},\n{\"b\": 2} ,\r\n\t {\"c\": \"},{\"}]";
  EXPECT_EQ(elementBoundary(text, 0), text.find(" ,") + 1);
  EXPECT_EQ(elementBoundary(text, text.find(" ,")), text.find(" ,") + 1);
  EXPECT_EQ(elementBoundary(text, text.rfind('\n')), npos) << "its newline must lie past min_len";
  EXPECT_EQ(elementBoundary(text.substr(0, text.find(" ,")), 0), text.find(",\n"));
  // Not between two objects, or with no newline: no boundary.
  EXPECT_EQ(elementBoundary("[1,\n2]", 0), npos);
  EXPECT_EQ(elementBoundary("[{\"a\": 1},\n2]", 0), npos);
  EXPECT_EQ(elementBoundary("{\"a\": {},\n\"b\": {}}", 0), npos) << "a key, not an object, follows";
  EXPECT_EQ(elementBoundary("[{\"a\": 1},\n   ", 0), npos) << "the text ends before the next object";
}

TEST(WindowCut, ElementBoundaryWithoutNewlinesScansStrings) {
  // One line, starting between two elements: the last comma between two
  // objects at the text's own depth, never one inside a string or an event.
  const std::string text = R"(,{"a": 1}, {"b": [{"x": 1},{"y": 2}], "name": "},{"} ,{"c": 3},{"d": ")";
  EXPECT_EQ(elementBoundary(text, 0), text.find("},{\"d\"") + 1);
  EXPECT_EQ(elementBoundary(text.substr(0, text.find("},{\"d\"")), 0), text.find(" ,{\"c\"") + 1);
  EXPECT_EQ(elementBoundary(R"(,{"a": 1},2)", 0), npos) << "not between two objects";
  EXPECT_EQ(elementBoundary(R"(,{"a": 1}, {"b": 2},   )", 0), 9u)
      << "the text ends before the object after the last comma: the one before it";
  EXPECT_EQ(elementBoundary(R"(,{"a": 1}]},{"b": 2})", 0), npos) << "past the array's end";
}

TEST(WindowCut, ElementBoundaryGuessedOnOneLineIgnoresStrings) {
  // The last "}", comma, "{" wherever it lies: in a string, deeper than the
  // events, past the array's end (the parse's check catches those).
  const std::string text = R"(,{"a": 1}, {"b": [{"x": 1},{"y": 2}], "name": "},{"} ,{"c": 3},{"d": ")";
  EXPECT_EQ(elementBoundary(text, 0, nullptr, OneLine::Guess), text.find("},{\"d\"") + 1);
  const std::string in_string = text.substr(0, text.find(" ,{\"c\""));
  EXPECT_EQ(elementBoundary(in_string, 0, nullptr, OneLine::Guess), in_string.find("},{\"}") + 1);
  EXPECT_EQ(elementBoundary(in_string, 0, nullptr, OneLine::Scan), text.find("}, {\"b\"") + 1);
  EXPECT_EQ(elementBoundary(R"(,{"a": 1}]},{"b": 2})", 0, nullptr, OneLine::Guess), 11u);
  EXPECT_EQ(elementBoundary(R"(,{"a": 1},2)", 0, nullptr, OneLine::Guess), npos) << "not between two objects";
  EXPECT_EQ(elementBoundary("[{\"a\": 1},\n{\"b\": 2}, {\"c\": 3}", 0, nullptr, OneLine::Guess),
            std::string("[{\"a\": 1},\n").size() - 2)
      << "a newline to trust comes first";
}

TEST(WindowCut, OneLineWithTheBoundaryPatternInsideEventsImportsTheSame) {
  // Every event's args and name are full of "}, {" (an array of objects; a
  // string), from its start: guessed cuts fail their check, and reading goes
  // on from there with the strings scanned. Small windows on two threads give
  // the same trace.
  std::string text = R"({"traceEvents": [)";
  for (int i = 0; i < 400; ++i)
    text += std::string(i ? ", " : "") + R"({"args": {"list": [{}, {"a": 1}, {}, {"b": "}, {}, {"}, {}]}, "ph": "X", )" +
            R"("pid": 1, "tid": 1, "ts": )" + std::to_string(i * 10) + R"(, "dur": 5, "name": "k}, {}, {)" +
            std::to_string(i) + R"("})";
  text += R"(], "displayTimeUnit": "ms"})";
  const Trace whole = importChromeTraceFromBuffer(text, "t.json");
  ASSERT_EQ(whole.eventCount(), 400u);
  size_t failures = 0;
  for (size_t window : {300u, 1000u, 4096u}) {
    ChromeImportOptions o;
    o.window_bytes = window;
    ImportWindowStats stats;
    o.stats = &stats;
    const Trace windowed = importChromeTraceFromBuffer(text, "t.json", o);
    std::string why;
    EXPECT_TRUE(windowed.sameContentAs(whole, &why)) << "window " << window << ": " << why;
    EXPECT_GT(stats.read_ahead, 0u) << "window " << window;
    failures += stats.ahead_failures;
  }
  EXPECT_GE(failures, 3u) << "guesses inside events fail their check";
}

TEST(WindowCut, CommaHeavyNamesImportTheSameInSmallWindows) {
  // One event per line, each name holding more commas than the importer's
  // attempts: small windows give the same trace as one window.
  std::string text = "{\"traceEvents\": [\n";
  for (int i = 0; i < 300; ++i) {
    std::string name = "void k<";
    for (int j = 0; j < 12; ++j) name += "int" + std::to_string(j) + ", ";
    text += std::string(i ? ",\n" : "") + "{\"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(i * 10) +
            ", \"dur\": 5, \"name\": \"" + name + std::to_string(i) + ">\", \"args\": {\"k\": \"a, b, c, d, e, f, g, h, i\"}}";
  }
  text += "\n]}\n";
  Trace whole = importChromeTraceFromBuffer(text, "t.json");
  for (size_t window : {256u, 400u, 1000u}) {
    ChromeImportOptions o;
    o.window_bytes = window;
    Trace windowed = importChromeTraceFromBuffer(text, "t.json", o);
    std::string why;
    EXPECT_TRUE(windowed.sameContentAs(whole, &why)) << "window " << window << ": " << why;
  }
  EXPECT_EQ(whole.eventCount(), 300u);
}

}  // namespace
}  // namespace fuselab::chrome_import
