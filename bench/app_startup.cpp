// Start-up cost of the commands that only read traces (`fuselab --version`,
// `fuselab analyze` of a small fixture), each run as a fresh process, against
// the same commands with the capture module (LibTorch, CUDA, CUPTI) loaded at
// start, as every command did before capture became a module (the module is
// LD_PRELOADed). Targets (the instant-viewer issue): under 50 ms and 60 MB of
// peak resident memory for both commands.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

extern char** environ;

namespace {

const std::string kFuselab = std::string(FUSELAB_BINARY_DIR) + "/app/fuselab";
const std::string kModule = std::string(FUSELAB_BINARY_DIR) + "/app/libfuselab_capture_module.so";
const std::string kFixture = std::string(FUSELAB_FIXTURES_DIR) + "/mlp_eager.json.gz";

struct Run {
  double seconds = 0;
  double peak_rss_mb = 0;
  bool ok = false;
};

// Runs fuselab with `args` (output dropped); `preload`: with the capture module loaded at start.
Run runFuselab(const std::vector<std::string>& args, bool preload) {
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) env_text.emplace_back(*e);
  if (preload) env_text.push_back("LD_PRELOAD=" + kModule);
  std::vector<char*> env, argv;
  for (auto& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  std::vector<std::string> argv_text = {kFuselab};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  Run run;
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, kFuselab.c_str(), &actions, nullptr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return run;
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.peak_rss_mb = double(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
  run.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return run;
}

// Per command and preload: the fastest run and the largest peak RSS.
std::map<std::pair<std::string, bool>, Run> g_best;

void startup(benchmark::State& state, const std::string& command, std::vector<std::string> args, bool preload) {
  Run& best = g_best[{command, preload}];
  best.seconds = 1e9;
  for (auto _ : state) {
    const Run r = runFuselab(args, preload);
    if (!r.ok) {
      state.SkipWithError("fuselab failed");
      return;
    }
    state.SetIterationTime(r.seconds);
    best.seconds = std::min(best.seconds, r.seconds);
    best.peak_rss_mb = std::max(best.peak_rss_mb, r.peak_rss_mb);
  }
  state.counters["peak_rss_MB"] = best.peak_rss_mb;
}

void BM_Version(benchmark::State& s) { startup(s, "--version", {"--version"}, false); }
void BM_VersionWithCaptureLoaded(benchmark::State& s) { startup(s, "--version", {"--version"}, true); }
void BM_Analyze(benchmark::State& s) { startup(s, "analyze", {"analyze", kFixture}, false); }
void BM_AnalyzeWithCaptureLoaded(benchmark::State& s) { startup(s, "analyze", {"analyze", kFixture}, true); }

}  // namespace

BENCHMARK(BM_Version)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(20);
BENCHMARK(BM_VersionWithCaptureLoaded)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);
BENCHMARK(BM_Analyze)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(20);
BENCHMARK(BM_AnalyzeWithCaptureLoaded)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  for (const char* command : {"--version", "analyze"}) {
    const Run& plain = g_best[{command, false}];
    const Run& loaded = g_best[{command, true}];
    if (plain.seconds <= 0 || loaded.seconds <= 0) continue;
    std::printf("%-9s %7.1f ms %6.1f MB   with the capture module loaded: %7.1f ms %6.1f MB   (%.0fx faster, %.0fx less memory)\n",
                command, plain.seconds * 1e3, plain.peak_rss_mb, loaded.seconds * 1e3, loaded.peak_rss_mb,
                loaded.seconds / plain.seconds, loaded.peak_rss_mb / plain.peak_rss_mb);
    std::printf("          target: under 50 ms and 60 MB: %s\n",
                plain.seconds < 0.050 && plain.peak_rss_mb < 60 ? "met" : "NOT met");
  }
  benchmark::Shutdown();
  return 0;
}
