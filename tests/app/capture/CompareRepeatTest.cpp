// `fuselab compare A B --repeat N` on the CPU: each side's workload, read from
// its trace, captured N more times live; every repeat's steps are samples.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/app/CliRun.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

std::string captureLinear(const std::string& name, const std::string& out_features) {
  const auto path = test::scratchDir("CompareRepeat." + name) / (name + ".json.gz");  // a dir each: scratchDir empties it
  auto r = test::runFuselab({"capture", "--workload", "linear", "--batch", "8", "--dim", "16", "--out-features",
                             out_features, "--dtype", "fp32", "--device", "cpu", "--steps", "3", "--warmup", "1",
                             "--out", path.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return path.string();
}

TEST(CompareRepeat, EachSideIsCapturedAgainWithItsOwnWorkload) {
  const std::string a = captureLinear("narrow", "8"), b = captureLinear("wide", "64");
  auto r = test::runFuselab({"compare", a, b, "--repeat", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);  // stdout is the document alone
  for (const char* side : {"a", "b"}) {
    EXPECT_EQ(j[side]["traces"], 3) << side;  // the given trace + 2 live repeats
    EXPECT_EQ(j[side]["steps"], 9) << side;   // 3 recorded steps each, as many as the given trace has
  }
  EXPECT_NE(r.err.find("side A: captured repeat 2 of 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("side B: captured repeat 2 of 2"), std::string::npos) << r.err;

  auto text = test::runFuselab({"compare", a, b, "--repeat", "1"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(a + " + 1 live"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace fuselab
