// `fuselab PATH...` / `fuselab open PATH...`: which traces a command line
// names, and the messages for paths that cannot be opened. Opening the
// window itself is tested in tests/gui/WindowTest.cpp.
#include <gtest/gtest.h>

#include <fstream>

#include "app/cli/OpenPaths.h"
#include "tests/app/CliRun.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

namespace fs = std::filesystem;

void touch(const fs::path& p) { std::ofstream(p) << "{}"; }

TEST(OpenPaths, AFileIsItself) {
  const fs::path f = test::fixture("mlp_eager.json.gz");
  EXPECT_EQ(tracesToOpen({f.string()}), std::vector<fs::path>{f});
}

TEST(OpenPaths, AFolderGivesItsTracesSortedAndNothingElse) {
  const fs::path dir = test::scratchDir("OpenPaths.Folder");
  touch(dir / "rank-1.json.gz");
  touch(dir / "rank-0.json");
  touch(dir / "notes.txt");
  fs::create_directories(dir / "sub");
  touch(dir / "sub" / "rank-2.json");
  EXPECT_EQ(tracesToOpen({dir.string()}), (std::vector<fs::path>{dir / "rank-0.json", dir / "rank-1.json.gz"}));
}

TEST(OpenPaths, SeveralFilesKeepTheirOrder) {
  const fs::path dir = test::scratchDir("OpenPaths.Several");
  touch(dir / "b.json");
  touch(dir / "a.json");
  EXPECT_EQ(tracesToOpen({(dir / "b.json").string(), (dir / "a.json").string()}),
            (std::vector<fs::path>{dir / "b.json", dir / "a.json"}));
}

TEST(OpenPaths, MissingPathsAndEmptyFoldersAreNamed) {
  const fs::path dir = test::scratchDir("OpenPaths.Bad");
  try {
    tracesToOpen({(dir / "nope.json").string()});
    ADD_FAILURE() << "a missing file was accepted";
  } catch (const OpenPathsError& e) {
    EXPECT_EQ(std::string(e.what()), "no such file or folder: " + (dir / "nope.json").string());
  }
  touch(dir / "readme.txt");
  try {
    tracesToOpen({dir.string()});
    ADD_FAILURE() << "a folder without traces was accepted";
  } catch (const OpenPathsError& e) {
    EXPECT_NE(std::string(e.what()).find(dir.string() + ": no trace files (*.json, *.json.gz) in this folder"),
              std::string::npos)
        << e.what();
  }
}

TEST(OpenPaths, TheCommandLineSaysWhatCannotBeOpenedAndExitsWithTwo) {
  const fs::path missing = test::scratchDir("OpenPaths.Cli") / "missing.json.gz";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{missing.string()}, std::vector<std::string>{"open", missing.string()}}) {
    const test::CliRun r = test::runFuselab(args);
    EXPECT_EQ(r.exit_code, 2) << args.front();
    EXPECT_NE(r.err.find("no such file or folder: " + missing.string()), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("was not expected"), std::string::npos) << "parsed as a stray argument: " << r.err;
  }
}

}  // namespace
}  // namespace fuselab
