// Ranks launched by torchrun (the venv's torch.distributed.run, standalone,
// two processes on Gloo): each fuselab process reads RANK, WORLD_SIZE,
// LOCAL_RANK, MASTER_ADDR and MASTER_PORT, captures itself and writes its
// trace into the --out folder, which then opens as one run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "app/capture/DistributedCapture.h"
#include "profiling/analysis/run/RunAnalysis.h"
#include "profiling/trace/RunLoader.h"
#include "tests/app/CliRun.h"
#include "tests/support/RunPython.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

namespace fs = std::filesystem;

struct ScopedEnv {
  std::string name;
  ScopedEnv(std::string n, const std::string& v) : name(std::move(n)) { ::setenv(name.c_str(), v.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name.c_str()); }
};

// Runs `torchrun --standalone --nproc-per-node 2 --no-python fuselab ARGS`.
test::PythonResult torchrun(const std::vector<std::string>& fuselab_args) {
  std::string cmd = test::shellQuote(test::pythonExe()) +
                    " -m torch.distributed.run --standalone --nproc-per-node 2 --no-python " +
                    test::shellQuote(fuselabExecutable().string());
  for (const std::string& a : fuselab_args) cmd += " " + test::shellQuote(a);
  cmd += " 2>&1";
  test::PythonResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(TpMlpTorchrun, EachLaunchedRankWritesItsTraceIntoTheRunFolder) {
  const fs::path out = test::scratchDir("TpMlpTorchrun-" + std::to_string(::getpid())) / "run";
  const test::PythonResult r =
      torchrun({"capture", "--workload", "tp_mlp", "--device", "cpu", "--dtype", "fp32", "--batch", "2", "--seq",
                "16", "--dim", "64", "--hidden", "128", "--warmup", "1", "--steps", "3", "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("once all 2 ranks have written: fuselab open " + out.string()), std::string::npos)
      << r.output;
  const fuselab::Run run = loadRun(traceFilesIn(out));
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(run.world_size, 2);
  EXPECT_EQ(run.backend, "gloo");
  const RunAnalysis a = analyzeRun(run);
  EXPECT_EQ(a.collectives.size(), 3u);  // one all-reduce per step, matched across the ranks
  EXPECT_EQ(a.alignment.method, AlignMethod::Collectives) << a.alignment.note;
  std::filesystem::remove(test::scratchDir(out.parent_path().filename().string()));  // empties it, then removes it
}

TEST(TpMlpTorchrun, ALaunchedRankNeedsARunFolderAndKeepsEarlierTraces) {
  ScopedEnv rank("RANK", "1"), world("WORLD_SIZE", "2");
  test::CliRun r = test::runFuselab({"capture", "--workload", "tp_mlp", "--device", "cpu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("needs --out DIR"), std::string::npos) << r.err;

  const fs::path out = test::scratchDir("TpMlpTorchrunKept-" + std::to_string(::getpid()));
  { std::ofstream(out / "rank-1.json.gz") << "an earlier run's trace"; }
  r = test::runFuselab({"capture", "--workload", "tp_mlp", "--device", "cpu", "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("exists (an earlier run's)"), std::string::npos) << r.err;

  r = test::runFuselab({"capture", "--workload", "tp_mlp", "--device", "cpu", "--ranks", "4", "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--ranks 4 but the launcher started WORLD_SIZE 2"), std::string::npos) << r.err;
  std::filesystem::remove(test::scratchDir(out.filename().string()));
}

}  // namespace
}  // namespace fuselab
