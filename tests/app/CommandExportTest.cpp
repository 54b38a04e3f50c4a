// `fuselab export IN OUT [--gzip]` and `export IN OUT.folded` through the
// real command line.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/Gzip.h"
#include "tests/app/CliRun.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

using test::CliRun;
using test::runFuselab;

std::string readBytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const std::filesystem::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary);
  out << s;
}

TEST(CommandExport, ConvertsGzipToJsonAndBack) {
  auto dir = test::scratchDir("CommandExport_Convert");
  std::string in = test::fixture("mlp_eager.json.gz").string();
  Trace original = importChromeTrace(in);

  CliRun r = runFuselab({"export", in, (dir / "mlp.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("wrote " + (dir / "mlp.json").string() + ": " + std::to_string(original.eventCount()) + " events", 0),
            0u)
      << r.out;
  EXPECT_FALSE(looksGzipped(readBytes(dir / "mlp.json")));

  r = runFuselab({"export", (dir / "mlp.json").string(), (dir / "again.json.gz").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(gzip)"), std::string::npos) << r.out;
  EXPECT_TRUE(looksGzipped(readBytes(dir / "again.json.gz")));

  r = runFuselab({"export", in, (dir / "forced.json").string(), "--gzip"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(looksGzipped(readBytes(dir / "forced.json")));

  std::string why;
  EXPECT_TRUE(importChromeTrace(dir / "again.json.gz").sameContentAs(original, &why)) << why;
  EXPECT_TRUE(importChromeTrace(dir / "forced.json").sameContentAs(original, &why)) << why;
}

TEST(CommandExport, BadInputFailsWithALocationAndLeavesTheOutputAlone) {
  auto dir = test::scratchDir("CommandExport_Bad");
  writeBytes(dir / "bad.json", R"({"traceEvents": [{"ph": "X", "pid": 1, "tid": 1, "ts": "soon", "dur": 1}]})");
  writeBytes(dir / "out.json", "previous contents");
  CliRun r = runFuselab({"export", (dir / "bad.json").string(), (dir / "out.json").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("traceEvents[0]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'ts' is a string"), std::string::npos) << r.err;
  EXPECT_EQ(readBytes(dir / "out.json"), "previous contents");

  r = runFuselab({"export", (dir / "missing.json").string(), (dir / "out.json").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot open"), std::string::npos) << r.err;
  EXPECT_EQ(readBytes(dir / "out.json"), "previous contents");

  r = runFuselab({"export", test::fixture("linear_eager.json.gz").string(), (dir / "no" / "such" / "dir.json").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
}

TEST(CommandExport, FoldedStacksNoteThePythonFramesNestedByTime) {
  auto dir = test::scratchDir("CommandExport_Folded");
  writeBytes(dir / "python.json", R"({"traceEvents": [
    {"ph": "X", "cat": "python_function", "name": "outer", "pid": 1, "tid": 7, "ts": 0, "dur": 100,
     "args": {"Python parent id": null, "Python id": 1}},
    {"ph": "X", "cat": "python_function", "name": "lost", "pid": 1, "tid": 7, "ts": 10, "dur": 10,
     "args": {"Python parent id": 99, "Python id": 2}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 7, "ts": 12, "dur": 2}]})");
  CliRun r = runFuselab({"export", (dir / "python.json").string(), (dir / "out.folded").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("note: 1 Python frame nested by time"), std::string::npos) << r.out;
  EXPECT_EQ(readBytes(dir / "out.folded"), "thread 7;outer 90\nthread 7;outer;lost 8\nthread 7;outer;lost;aten::add 2\n");
}

}  // namespace
}  // namespace fuselab
