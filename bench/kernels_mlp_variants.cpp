// Per-forward wall time of the GeGLU MLP (dim 768, hidden 3072, bf16) in every
// form the workbench offers: eager LibTorch (the mlp workload), eager replayed as
// a CUDA graph, the Liger-style variant and fuselab's fused kernels, at 1, 16, 64,
// 512 and 8192 tokens. Time = host clock from the first launch of a batch of
// back-to-back forwards to the end of a device synchronize, divided by the batch.
// The table at the end gives ratios against eager measured in the same run,
// TFLOP/s and GB/s of weights.
//
// With --peers, bench/kernels_mlp_peers.py first times the peers users would
// pick (torch.compile default and max-autotune, Liger's LigerGEGLUMLP, eager
// PyTorch) on the same shapes in a child process, and the table gains their
// rows, with ratios against this run's eager.
//
// The weights (14.2 MB) fit in the H100's 50 MB L2, so back-to-back forwards may
// read them from L2. Rows marked "L2-cold" rotate over 4 workloads with their own
// weights (57 MB in all), so each forward has to fetch its weights from HBM.
#include <benchmark/benchmark.h>

#include <cstdio>

#ifdef FUSELAB_HAVE_CUDA
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAFunctions.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>

#include "bench/MlpSmallKernels.h"
#include "kernels/DownGemmLt.h"
#include "kernels/FusedMlp.h"
#include "kernels/FusedMlpKernels.h"
#include "kernels/LaunchReplay.h"
#include "kernels/TorchWorkload.h"
#include "kernels/WorkloadRegistry.h"
#include "tests/support/BuildPaths.h"

namespace fuselab {
namespace {

constexpr int64_t kDim = 768, kHidden = 3072;
// The token counts of the table; --tokens=N,N,... replaces them.
std::vector<int64_t>& tokenCounts() {
  static std::vector<int64_t> t = {1, 16, 64, 128, 256, 512, 1024, 2048, 8192};
  return t;
}

// "--tokens=64,96,128" -> {64, 96, 128}; false where an entry is not a count of 1 to 65536.
bool parseTokenCounts(const std::string& list, std::vector<int64_t>& out) {
  out.clear();
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      return false;
    }
    if (used != item.size() || v < 1 || v > 65536) return false;
    out.push_back(v);
  }
  return !out.empty();
}

struct Row {
  int64_t tokens;
  std::string variant;
  double flops, weight_bytes;
  std::function<void()> forward;  // enqueues one forward
  std::function<void()> sync;
};

std::vector<Row>& rows() {
  static std::vector<Row> r;
  return r;
}
std::map<std::string, double>& seconds() {  // row name -> seconds per forward
  static std::map<std::string, double> s;
  return s;
}
std::map<std::string, double>& hostSeconds() {  // row name -> host time to enqueue one forward
  static std::map<std::string, double> s;
  return s;
}
struct PeerRow {
  std::string peer;
  double seconds;
};
std::map<int64_t, std::vector<PeerRow>>& peerRows() {  // tokens -> the peers' per-forward times
  static std::map<int64_t, std::vector<PeerRow>> p;
  return p;
}

// Runs bench/kernels_mlp_peers.py (a child process, before this process's own
// rows) and keeps its rows; --peers=FILE reads what the script wrote earlier
// in the same session instead. A peer that is missing is said, not fatal.
void runPeers(std::string json) {
  if (json.empty()) {
    json = std::string(fuselab::build_paths::binaryDir()) + "/kernels_mlp_peers.json";
    const std::string cmd = std::string("\"") + fuselab::build_paths::pythonExe() + "\" \"" + fuselab::build_paths::sourceDir() +
                            "/bench/kernels_mlp_peers.py\" --json \"" + json + "\" 1>&2";
    std::fprintf(stderr, "peers: %s\n", cmd.c_str());
    if (std::system(cmd.c_str()) != 0) {
      std::printf("peers: bench/kernels_mlp_peers.py failed (see above); the table has fuselab's rows only\n");
      return;
    }
  }
  try {
    std::ifstream in(json);
    const nlohmann::json doc = nlohmann::json::parse(in);
    for (const auto& r : doc.at("rows")) {
      if (r.contains("note") || !r.contains("us_per_forward")) {
        std::printf("peers: %s: %s\n", r["peer"].get<std::string>().c_str(), r.value("note", std::string("-")).c_str());
        continue;
      }
      peerRows()[r.at("tokens").get<int64_t>()].push_back(
          {r.at("peer").get<std::string>(), r.at("us_per_forward").get<double>() * 1e-6});
    }
  } catch (const std::exception& e) {
    std::printf("peers: cannot read %s: %s\n", json.c_str(), e.what());
  }
}

std::vector<std::unique_ptr<Workload>>& keep() {
  static std::vector<std::unique_ptr<Workload>> k;
  return k;
}

std::string rowName(const Row& r) { return "M=" + std::to_string(r.tokens) + "/" + r.variant; }

Workload* build(const std::string& workload, const std::string& variant, int64_t tokens, bool graph,
                uint64_t seed) {
  WorkloadParams p;
  p.workload = workload;
  p.variant = variant;
  p.batch = 1;
  p.seq = tokens;
  p.dim = kDim;
  p.hidden = kHidden;
  p.dtype = DType::BF16;
  p.graph = graph;
  p.seed = seed;
  keep().push_back(makeWorkload(p));
  return keep().back().get();
}

void addWorkloadRow(int64_t tokens, const std::string& label, const std::string& workload,
                    const std::string& variant, bool graph, int copies = 1) {
  std::vector<Workload*> ws;
  for (int i = 0; i < copies; ++i) ws.push_back(build(workload, variant, tokens, graph, 42 + i));
  auto next = std::make_shared<size_t>(0);
  rows().push_back({tokens, label, ws[0]->flopsPerForward(), ws[0]->weightBytes(),
                    [ws, next] { ws[(*next)++ % ws.size()]->forward(); }, [w = ws[0]] { w->synchronize(); }});
}

// The large path's down GEMM alone, as the fused forward runs it (cuBLASLt's
// algorithm picked by device time, then replayed from a CUDA graph), to split
// the path's time between its two kernels. Through at::mm_out, launched one
// by one, this row measured LibTorch's host time (11-16 us at 128-1024 tokens).
void addDownGemmRow(int64_t tokens) {
  auto* w = dynamic_cast<TorchWorkload*>(build("fused_mlp", "large", tokens, false, 42));
  const at::Tensor down = w->weights()[2];
  const at::Tensor act = at::randn({tokens, kHidden}, down.options());
  auto y = std::make_shared<at::Tensor>(at::empty({tokens, kDim}, down.options()));
  auto gemm = std::make_shared<DownGemmLt>(kDim, kHidden, down.scalar_type() == at::kBFloat16, 0);
  auto replay = std::make_shared<LaunchReplay>();
  rows().push_back({tokens, "down GEMM alone (cuBLASLt)", 2.0 * tokens * kDim * kHidden, double(kDim) * kHidden * 2,
                    [act, down, y, gemm, replay, tokens] {
                      const cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
                      auto launch = [&](cudaStream_t s) {
                        gemm->run(act.data_ptr(), down.data_ptr(), y->data_ptr(), tokens, s);
                      };
                      if (gemm->chosenCandidate(tokens) < 0) {
                        launch(stream);  // picks the algorithm (synchronizes): not replayable yet
                      } else {
                        replay->run({act.data_ptr(), y->data_ptr(), tokens, 0}, stream, launch);
                      }
                    },
                    [w] { w->synchronize(); }});
}

// The GeGLU GEMM alone in each of its Hopper forms (tile shapes), to pick the
// form per token count from measurements.
void addGegluGemmRows(int64_t tokens) {
  namespace fm = fusedmlp;
  auto* w = dynamic_cast<TorchWorkload*>(build("fused_mlp", "large", tokens, false, 42));
  const at::TensorOptions bf = at::TensorOptions().dtype(at::kBFloat16).device(at::kCUDA, 0);
  auto mlp = std::make_shared<FusedMlp>(w->weights()[0], w->weights()[1], w->weights()[2]);
  if (!fm::gegluGemmWgmmaAvailable(0)) return;
  auto x = std::make_shared<at::Tensor>(at::randn({tokens, kDim}, bf));
  auto act = std::make_shared<at::Tensor>(at::empty({tokens, kHidden}, bf));
  for (fm::GegluTile tile : fm::kGegluTileForms) {
    auto maps = std::make_shared<fm::GegluGemmMaps>();
    fm::encodeGegluGemmMaps(*maps, fm::ElemType::BF16, x->data_ptr(), mlp->gateUpInterleaved().data_ptr(),
                            act->data_ptr(), tokens, kDim, kHidden, tile);
    rows().push_back({tokens, std::string("GeGLU GEMM alone, ") + fm::gegluTileName(tile),
                      2.0 * tokens * kDim * 2 * kHidden, 2.0 * kDim * 2 * kHidden,
                      [mlp, x, act, maps, tokens] {
                        fm::launchGegluGemmWgmma(*maps, fm::ElemType::BF16, tokens, kDim, kHidden,
                                                 at::cuda::getCurrentCUDAStream().stream());
                      },
                      [w] { w->synchronize(); }});
  }
}

void timeRow(benchmark::State& state, const Row* row) {
  const int batch = row->tokens >= 4096 ? 20 : 200;
  for (int i = 0; i < 3; ++i) row->forward();  // warm-up: plans, workspaces, cuBLAS state
  row->sync();
  double host = 0;
  int64_t batches = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) row->forward();
    const auto t1 = std::chrono::steady_clock::now();
    row->sync();
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    state.SetIterationTime(dt.count() / batch);
    host += std::chrono::duration<double>(t1 - t0).count() / batch;
    ++batches;
  }
  if (batches > 0) hostSeconds()[rowName(*row)] = host / double(batches);
}

class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Iteration && r.iterations > 0) {
        seconds()[r.run_name.function_name] = r.real_accumulated_time / double(r.iterations);
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

void printSummary();

void printTable() {
  std::printf("\nGeGLU MLP, dim %ld, hidden %ld, bf16: per-forward wall time (host launch to completion, "
              "averaged over back-to-back forwards)\n",
              long(kDim), long(kHidden));
  std::printf("%7s  %-34s %11s %9s %9s %11s %8s\n", "tokens", "variant", "us/forward", "vs eager", "TFLOP/s",
              "weight GB/s", "host us");
  for (int64_t tokens : tokenCounts()) {
    double eager = 0;
    for (const Row& r : rows()) {
      if (r.tokens == tokens && r.variant == "eager") eager = seconds()[rowName(r)];
    }
    double flops = 0, weight_bytes = 0;
    for (const Row& r : rows()) {
      if (r.tokens != tokens) continue;
      const double s = seconds()[rowName(r)];
      if (s <= 0) continue;
      if (r.variant == "eager") flops = r.flops, weight_bytes = r.weight_bytes;
      std::printf("%7ld  %-34s %11.1f %8.2fx %9.1f %11.0f %8.1f\n", long(tokens), r.variant.c_str(), s * 1e6,
                  eager > 0 ? eager / s : 0.0, r.flops / s / 1e12, r.weight_bytes / s / 1e9,
                  hostSeconds()[rowName(r)] * 1e6);
    }
    for (const PeerRow& p : peerRows()[tokens]) {
      std::printf("%7ld  %-34s %11.1f %8.2fx %9.1f %11.0f %8s\n", long(tokens), ("peer: " + p.peer).c_str(),
                  p.seconds * 1e6, eager > 0 ? eager / p.seconds : 0.0, flops / p.seconds / 1e12,
                  weight_bytes / p.seconds / 1e9, "-");
    }
  }
  printSummary();
  std::printf("(vs eager: eager time / this time, so 5.00x means five times faster; host us: time to enqueue\n"
              " one forward, measured over the same batches: where it is close to us/forward, the host is the limit)\n");
}

// Per token count: fused against the fastest of everything else in the table
// (eager, CUDA graph, Liger-style, the peers), and against the CUDA graph.
void printSummary() {
  std::printf("\nfused (auto) against the others, same run (ratio = their time / fused time; >1: fused is faster)\n");
  std::printf("%7s %11s  %-34s %11s %11s\n", "tokens", "fused us", "fastest other", "vs fastest", "vs graph");
  for (int64_t tokens : tokenCounts()) {
    double fused = 0, graph = 0, best = 0;
    std::string best_name;
    auto consider = [&](const std::string& name, double s) {
      if (s > 0 && (best == 0 || s < best)) best = s, best_name = name;
    };
    for (const Row& r : rows()) {
      if (r.tokens != tokens) continue;
      const double s = seconds()[rowName(r)];
      if (r.variant == "fused (auto)") fused = s;
      else if (r.variant == "eager, CUDA graph") graph = s, consider(r.variant, s);
      else if (r.variant == "eager" || r.variant == "liger (4 kernels)") consider(r.variant, s);
    }
    for (const PeerRow& p : peerRows()[tokens]) consider("peer: " + p.peer, p.seconds);
    if (fused <= 0) continue;
    std::printf("%7ld %11.1f  %-34s %10.2fx %10.2fx\n", long(tokens), fused * 1e6, best_name.c_str(), best / fused,
                graph > 0 ? graph / fused : 0.0);
  }
}

}  // namespace
}  // namespace fuselab

int main(int argc, char** argv) {
  using namespace fuselab;
  if (!at::hasCUDA() || c10::cuda::device_count() == 0) {
    std::printf("no CUDA GPU: this benchmark needs one\n");
    return 0;
  }
  // Start CUDA (context and LibTorch's allocator) before the first makeWorkload:
  // its free-memory check reads allocator statistics, which exist only after that.
  at::empty({1}, at::TensorOptions().device(at::kCUDA, 0));
  if (argc == 2 && std::string(argv[1]) == "--small_kernels") {  // only the small-token kernel section
    bench::smallKernelExperiments(kDim, kHidden);
    return 0;
  }
  bool small_kernels = true;
  for (int i = 1; i < argc;) {  // our own flags, before Google Benchmark sees the rest
    const std::string arg = argv[i];
    if (arg.rfind("--peers", 0) == 0 || arg == "--no_small_kernels" || arg.rfind("--tokens=", 0) == 0) {
      if (arg == "--no_small_kernels") {
        small_kernels = false;
      } else if (arg.rfind("--tokens=", 0) == 0) {
        if (!parseTokenCounts(arg.substr(9), tokenCounts())) {
          std::fprintf(stderr, "--tokens: expected token counts from 1 to 65536 separated by commas, got '%s'\n",
                       arg.substr(9).c_str());
          return 2;
        }
      } else {
        runPeers(arg.size() > 8 && arg[7] == '=' ? arg.substr(8) : "");
      }
      for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
      --argc;
    } else {
      ++i;
    }
  }
  for (int64_t tokens : tokenCounts()) {
    addWorkloadRow(tokens, "eager", "mlp", "geglu", false);
    addWorkloadRow(tokens, "eager, CUDA graph", "mlp", "geglu", true);
    addWorkloadRow(tokens, "liger (4 kernels)", "fused_mlp", "liger", false);
    addWorkloadRow(tokens, "fused (auto)", "fused_mlp", "auto", false);
    if (tokens <= kFusedMlpSmallMaxTokens) {
      addWorkloadRow(tokens, "eager, CUDA graph, L2-cold", "mlp", "geglu", true, 4);
      addWorkloadRow(tokens, "fused (auto), L2-cold", "fused_mlp", "auto", false, 4);
      addWorkloadRow(tokens, "fused small_deterministic", "fused_mlp", "small_deterministic", false);
    } else {
      // Up to 128 tokens on Hopper, the one launch that auto leaves for the large path.
      if (tokens <= kFusedMlpSmallMaxTokensHopper && fusedmlp::gegluGemmWgmmaAvailable(0)) {
        addWorkloadRow(tokens, "fused small (one pass, row tiles)", "fused_mlp", "small", false);
      }
      addWorkloadRow(tokens, "fused large_mma (portable kernel)", "fused_mlp", "large_mma", false);
      addDownGemmRow(tokens);
      addGegluGemmRows(tokens);
    }
  }
  // With a --benchmark_filter (e.g. under a profiler) only the chosen rows run;
  // --small_kernels runs only the small-token kernel section.
  bool filtered = false;
  for (int i = 1; i < argc; ++i) filtered |= std::string(argv[i]).rfind("--benchmark_filter", 0) == 0;
  for (const Row& r : rows()) {
    benchmark::RegisterBenchmark(rowName(r).c_str(), timeRow, &r)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->Iterations(r.tokens >= 4096 ? 10 : 25);
  }
  benchmark::Initialize(&argc, argv);
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  printTable();
  if (!filtered && small_kernels) bench::smallKernelExperiments(kDim, kHidden);
  benchmark::Shutdown();
  return 0;
}

#else  // a build without CUDA has no fused kernels to time

int main() {
  std::printf("no CUDA GPU: this fuselab build has no CUDA, so there is nothing to benchmark\n");
  return 0;
}

#endif
