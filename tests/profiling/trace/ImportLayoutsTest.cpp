// Real traces in every JSON layout they reach users in (on one line, pretty-
// printed, a top-level array, CRLF, events shuffled) import to the same
// trace, in small windows and large, one thread or two.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/FixtureJson.h"
#include "tests/support/ImportMode.h"
#include "tests/support/TraceLayouts.h"

namespace fuselab {
namespace {

// Each event as (track, start from the trace's base time, duration, name,
// correlation), sorted: what a trace holds whatever order its file listed
// the events in (a top-level array has no baseTimeNanoseconds).
using EventKey = std::tuple<std::string, int64_t, int64_t, std::string, int64_t>;
std::vector<EventKey> eventKeys(const Trace& t) {
  std::vector<EventKey> keys;
  for (const Track& track : t.tracks) {
    const std::string label = std::string(t.strings.get(track.pid_id)) + "/" + std::string(t.strings.get(track.tid_id));
    for (size_t i = 0; i < track.size(); ++i)
      keys.emplace_back(label, track.start_ns[i] - t.meta.base_time_ns, track.dur_ns[i], std::string(t.strings.get(track.name_id[i])),
                        track.correlation[i]);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

TEST(ImportLayouts, EveryLayoutGivesTheSameTrace) {
  for (const std::string& name : test::fixtureNames()) {
    const std::string kineto_text = test::fixtureText(name);
    const Trace kineto = importChromeTraceFromBuffer(kineto_text, name);
    const test::KinetoParts parts = test::splitKinetoText(kineto_text);
    for (test::TraceLayout layout : test::kTraceLayouts) {
      std::ostringstream out;
      test::writeLayout(parts, layout, out);
      const std::string text = out.str();
      const std::string what = name + " " + test::layoutName(layout);
      for (const auto& [parallel, window] : {std::pair{true, size_t(4096)}, {false, size_t(4096)}, {true, size_t(1) << 20}}) {
        Trace t;
        ASSERT_NO_THROW(t = importChromeTraceFromBuffer(text, what, test::importMode(parallel, window))) << what;
        const std::string at = what + ", window " + std::to_string(window) + (parallel ? ", two threads" : "");
        // A top-level array has no top-level fields; shuffled events list
        // flows and ties in another order: the events must still agree.
        if (layout == test::TraceLayout::Array || layout == test::TraceLayout::Shuffled) {
          EXPECT_EQ(eventKeys(t), eventKeys(kineto)) << at;
          EXPECT_EQ(t.flows.size(), kineto.flows.size()) << at;
        } else {
          std::string why;
          EXPECT_TRUE(t.sameContentAs(kineto, &why)) << at << ": " << why;
        }
      }
    }
  }
}

TEST(ImportLayouts, EveryLayoutIsReadAheadOnTwoThreadsWithoutFailedCuts) {
  const test::KinetoParts parts = test::splitKinetoText(test::fixtureText("mlp_eager"));
  for (test::TraceLayout layout : test::kTraceLayouts) {
    std::ostringstream out;
    test::writeLayout(parts, layout, out);
    ImportWindowStats stats;
    ChromeImportOptions o = test::importMode(true, 4096);
    o.stats = &stats;
    importChromeTraceFromBuffer(out.str(), "t.json", o);
    EXPECT_GT(stats.read_ahead, stats.windows * 3 / 4)
        << test::layoutName(layout) << ": " << stats.read_ahead << " of " << stats.windows << " windows read ahead";
    EXPECT_EQ(stats.ahead_failures, 0u) << test::layoutName(layout);
  }
}

TEST(ImportLayouts, PrettyPrintedArgsTakeNoMoreMemoryThanOnOneLine) {
  const std::string kineto_text = test::fixtureText("linear_eager");
  const test::KinetoParts parts = test::splitKinetoText(kineto_text);
  std::ostringstream pretty, one_line;
  test::writeLayout(parts, test::TraceLayout::Pretty, pretty);
  test::writeLayout(parts, test::TraceLayout::OneLine, one_line);
  const Trace a = importChromeTraceFromBuffer(pretty.str(), "pretty.json");
  const Trace b = importChromeTraceFromBuffer(one_line.str(), "one_line.json");
  EXPECT_GT(pretty.str().size(), one_line.str().size() * 5 / 4);
  EXPECT_LE(a.args_text->size(), b.args_text->size()) << "args are kept without their indentation";
}

}  // namespace
}  // namespace fuselab
