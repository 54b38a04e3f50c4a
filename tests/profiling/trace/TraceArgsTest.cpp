#include "profiling/trace/TraceArgs.h"

#include <gtest/gtest.h>

#include "profiling/trace/ChromeTraceImport.h"
#include "tests/support/FixtureJson.h"

namespace fuselab {
namespace {

TEST(TraceArgs, KernelArgsMatchTheFixture) {
  Trace t = importChromeTrace(test::fixture("mlp_eager.json.gz"));
  // Kernels by correlation, as nlohmann reads them (keys in file order).
  std::map<int64_t, nlohmann::ordered_json> expected;
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(test::fixtureText("mlp_eager"));
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X" && e["cat"] == "kernel") expected[e["args"]["correlation"].get<int64_t>()] = e["args"];
  size_t checked = 0;
  for (uint32_t ti = 0; ti < t.tracks.size(); ++ti) {
    const Track& tr = t.tracks[ti];
    for (uint32_t i = 0; i < tr.size(); ++i) {
      if (tr.category[i] != Category::Kernel) continue;
      EventRef ev{ti, i};
      const auto& args = expected.at(tr.correlation[i]);
      EXPECT_EQ(argIntArray(t, ev, "grid"), args["grid"].get<std::vector<int64_t>>());
      EXPECT_EQ(argIntArray(t, ev, "block"), args["block"].get<std::vector<int64_t>>());
      EXPECT_EQ(argInt(t, ev, "registers per thread"), args["registers per thread"].get<int64_t>());
      EXPECT_EQ(argInt(t, ev, "shared memory"), args["shared memory"].get<int64_t>());
      EXPECT_EQ(argInt(t, ev, "correlation"), tr.correlation[i]);
      EXPECT_EQ(argInt(t, ev, "no such key"), std::nullopt);
      EXPECT_TRUE(argIntArray(t, ev, "no such key").empty());
      auto shown = argsForDisplay(t, ev);
      ASSERT_EQ(shown.size(), args.size());
      size_t k = 0;
      for (auto it = args.begin(); it != args.end(); ++it, ++k) {
        EXPECT_EQ(shown[k].first, it.key());
        EXPECT_EQ(shown[k].second, it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 15u);
}

TEST(TraceArgs, ValuesOfOtherShapes) {
  std::string a = R"({"n": 7, "f": 7.0, "half": 7.5, "s": "7", "neg": -3, "big": 18446744073709551615,
                      "arr": [1, 2, 3], "mixed": [1, "x"], "nested": {"k": [1]}, "esc": "a\"b\u00e9"})";
  EXPECT_EQ(argInt(a, "n"), 7);
  EXPECT_EQ(argInt(a, "f"), 7);
  EXPECT_EQ(argInt(a, "half"), std::nullopt);
  EXPECT_EQ(argInt(a, "s"), std::nullopt);
  EXPECT_EQ(argInt(a, "neg"), -3);
  EXPECT_EQ(argInt(a, "big"), std::nullopt);
  EXPECT_EQ(argIntArray(a, "arr"), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_TRUE(argIntArray(a, "mixed").empty());
  EXPECT_TRUE(argIntArray(a, "n").empty());
  auto shown = argsForDisplay(a);
  ASSERT_EQ(shown.size(), 10u);
  EXPECT_EQ(shown[0], (std::pair<std::string, std::string>{"n", "7"}));
  EXPECT_EQ(shown[3], (std::pair<std::string, std::string>{"s", "7"}));
  EXPECT_EQ(shown[6], (std::pair<std::string, std::string>{"arr", "[1,2,3]"}));
  EXPECT_EQ(shown[8], (std::pair<std::string, std::string>{"nested", "{\"k\":[1]}"}));
  EXPECT_EQ(shown[9], (std::pair<std::string, std::string>{"esc", "a\"b\xc3\xa9"}));
}

TEST(TraceArgs, MalformedOrMissingArgsGiveEmptyResults) {
  for (std::string bad : {R"({"n": 7)", R"({"n": tru})", "[1, 2]", "", "{\"n\": \"\xff\"}", "nonsense"}) {
    EXPECT_EQ(argInt(bad, "n"), std::nullopt) << bad;
    EXPECT_TRUE(argIntArray(bad, "n").empty()) << bad;
    auto shown = argsForDisplay(bad);
    if (bad.empty()) {
      EXPECT_TRUE(shown.empty());
    } else {
      ASSERT_EQ(shown.size(), 1u) << bad;
      EXPECT_EQ(shown[0].first, "(malformed args)");
    }
  }
  // Events without args, and references out of range.
  Trace t;
  uint32_t tr = t.trackFor("1", "1");
  Trace::NewEvent e;
  e.name_id = t.strings.intern("op");
  t.append(tr, e);
  t.finalize();
  EXPECT_TRUE(argsForDisplay(t, EventRef{tr, 0}).empty());
  EXPECT_EQ(argInt(t, EventRef{tr, 0}, "x"), std::nullopt);
  EXPECT_EQ(argInt(t, EventRef{tr, 5}, "x"), std::nullopt);
  EXPECT_EQ(argInt(t, EventRef{9, 0}, "x"), std::nullopt);
}

std::string kinds(const std::vector<ArgInt>& values) {
  std::string out;
  for (const ArgInt& v : values) {
    switch (v.kind) {
      case ArgInt::Kind::Absent: out += "absent "; break;
      case ArgInt::Kind::Null: out += "null "; break;
      case ArgInt::Kind::Integer: out += std::to_string(v.value) + " "; break;
      case ArgInt::Kind::Other: out += "other "; break;
    }
  }
  return out;
}

TEST(TraceArgs, ReaderReadsSeveralKeysOfManyEvents) {
  ArgIntReader reader({"id", "parent"});
  EXPECT_EQ(kinds(reader.read(R"({"parent": null, "x": 1, "id": 3})")), "3 null ");
  EXPECT_EQ(kinds(reader.read(R"({"id": "3", "parent": 1.5})")), "other other ");
  EXPECT_EQ(kinds(reader.read(R"({"id": 7.0})")), "7 absent ");
  EXPECT_EQ(kinds(reader.read(R"({"id": 1, "id": 2, "parent": -5})")), "1 -5 ");  // the first, as argInt
  for (std::string bad : {R"({"id": 7)", R"({"id": 7, "parent": nul})", "[1, 2]", "", "nonsense"})
    EXPECT_EQ(kinds(reader.read(bad)), "absent absent ") << bad;
  Trace t;
  const uint32_t tr = t.trackFor("1", "1");
  Trace::NewEvent e;
  e.args = t.addArgs(R"({"parent": 4})");
  t.append(tr, e);
  t.append(tr, Trace::NewEvent{});
  t.finalize();
  EXPECT_EQ(kinds(reader.read(t, {tr, 0})), "absent 4 ");
  EXPECT_EQ(kinds(reader.read(t, {tr, 1})), "absent absent ");  // no args
  EXPECT_EQ(kinds(reader.read(t, {tr, 5})), "absent absent ");
}

}  // namespace
}  // namespace fuselab
