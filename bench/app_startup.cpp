// Start-up cost of the commands that only read traces (`fuselab --version`,
// `fuselab analyze` of a small fixture), each run as a fresh process, against
// the same commands with the capture module (LibTorch, CUDA, CUPTI) loaded at
// start, as every command did before capture became a module (the module is
// LD_PRELOADed). Targets (the instant-viewer issue): under 50 ms and 60 MB of
// peak resident memory for both commands.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "bench/FuselabProcess.h"
#include "tests/support/BuildPaths.h"

namespace {

const std::string kModule = std::string(fuselab::build_paths::binaryDir()) + "/app/libfuselab_capture_module.so";
const std::string kFixture = std::string(fuselab::build_paths::fixturesDir()) + "/mlp_eager.json.gz";

using Run = fuselab::bench::ProcessRun;

// Runs fuselab with `args` (output dropped); `preload`: with the capture module loaded at start.
Run runFuselab(const std::vector<std::string>& args, bool preload) {
  return fuselab::bench::runFuselab(args, preload ? std::vector<std::string>{"LD_PRELOAD=" + kModule}
                                                  : std::vector<std::string>{});
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
