// Import of one trace in every JSON layout it reaches users in
// (tests/support/TraceLayouts.h) and gzip-compressed, against the same trace in
// Kineto's layout (a few lines per event), measured side by side in one run:
// each import in a new process (bench/ImportInNewProcess.h: its time and its
// peak memory growth),
// the layouts taking turns, the best of three rounds each.
// Counters, per layout: time_ratio and peak_ratio to Kineto's layout
// (targets: at most 1.2 each), and for gzip: the import speed in MB of JSON
// per second, and the ratio to the uncompressed file (target: within 1.3x,
// or twice the speed of an import capped by zlib's inflate on one thread,
// whichever is slower), beside zlib's and ISA-L's inflate speeds alone;
// and the share of each layout's windows read ahead on two threads.
// FUSELAB_BENCH_EVENTS sets the events (default 1M, about 300 MB);
// FUSELAB_BENCH_KEEP_DIR keeps the files there (else a temporary folder).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "bench/ImportInNewProcess.h"
#include "bench/TiledTrace.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/Gzip.h"
#include "tests/support/TraceLayouts.h"

namespace {

namespace fs = std::filesystem;
using namespace fuselab;

size_t targetEvents() {
  const char* env = std::getenv("FUSELAB_BENCH_EVENTS");
  return env && *env ? std::strtoull(env, nullptr, 10) : 1'000'000;
}

fs::path filesDir() {
  const char* keep = std::getenv("FUSELAB_BENCH_KEEP_DIR");
  if (keep && *keep) return keep;
  return fs::temp_directory_path() / ("fuselab-bench-layouts-" + std::to_string(::getpid()));
}

struct Files {
  fs::path dir = filesDir();
  fs::path kineto = dir / "kineto.json";
  std::map<std::string, fs::path> others;  // by layout name; "gzip": kineto.json.gz
  Files() {
    fs::create_directories(dir);
    bench::writeTiledTrace(kineto.string(), targetEvents());
    std::ifstream in(kineto, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const test::KinetoParts parts = test::splitKinetoText(text);
    for (test::TraceLayout l : test::kTraceLayouts) {
      const fs::path p = dir / (std::string(test::layoutName(l)) + ".json");
      std::ofstream out(p, std::ios::binary);
      test::writeLayout(parts, l, out);
      if (!out.flush()) throw std::runtime_error("cannot write " + p.string());
      others[test::layoutName(l)] = p;
    }
    std::ofstream(dir / "kineto.json.gz", std::ios::binary) << gzipCompress(text, 6);
    others["gzip"] = dir / "kineto.json.gz";
  }
  ~Files() {
    std::error_code ec;
    if (!std::getenv("FUSELAB_BENCH_KEEP_DIR")) fs::remove_all(dir, ec);
  }
};

// An inflate of the whole .json.gz on one thread, in MB of JSON per second:
// zlib's, and fuselab's (ISA-L's igzip).
template <typename Inflate>
double inflateMbPerS(const fs::path& gz, Inflate inflate) {
  std::ifstream in(gz, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto t0 = std::chrono::steady_clock::now();
  const std::string text = inflate(bytes);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return double(text.size()) / 1e6 / s;
}

void Layouts(benchmark::State& state) {
  static Files files;
  std::map<std::string, bench::ImportMeasured> best;
  auto keep = [&](const std::string& name, const bench::ImportMeasured& m) {
    auto [it, fresh] = best.try_emplace(name, m);
    if (!fresh) {
      it->second.seconds = std::min(it->second.seconds, m.seconds);
      it->second.peak_bytes = std::min(it->second.peak_bytes, m.peak_bytes);
    }
  };
  for (auto _ : state) {
    keep("kineto", bench::importInNewProcess(files.kineto.string()));
    for (const auto& [name, path] : files.others) keep(name, bench::importInNewProcess(path.string()));
  }
  const bench::ImportMeasured& base = best.at("kineto");
  const double json_mb = double(fs::file_size(files.kineto)) / 1e6;
  state.counters["events"] = double(base.events);
  state.counters["kineto_s"] = base.seconds;
  state.counters["kineto_peak_mb"] = base.peak_bytes / 1e6;
  for (const auto& [name, m] : best) {
    if (name == "kineto") continue;
    if (m.events != base.events) state.SkipWithError((name + ": a different number of events").c_str());
    state.counters[name + "_time_ratio"] = m.seconds / base.seconds;
    // Windows parsed ahead on two threads, of all (Kineto's layout: all but the first and last few).
    state.counters[name + "_read_ahead"] = double(m.windows.read_ahead) / double(std::max<size_t>(m.windows.windows, 1));
    state.counters[name + "_peak_ratio"] = m.peak_bytes / base.peak_bytes;
  }
  state.counters["gzip_json_mb_per_s"] = json_mb / best.at("gzip").seconds;
  const fs::path& gz = files.others.at("gzip");
  state.counters["zlib_inflate_mb_per_s"] = inflateMbPerS(gz, [&](const std::string&) { return bench::gunzipFile(gz.string()); });
  state.counters["isal_inflate_mb_per_s"] = inflateMbPerS(gz, [](const std::string& bytes) { return gunzip(bytes); });
}
BENCHMARK(Layouts)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace

int main(int argc, char** argv) {
  if (const int rc = bench::importOneIfAsked(argc, argv); rc >= 0) return rc;
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
