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

// The small-token kernel driven directly, in several configurations, with its
// per-block phase timeline (%globaltimer): where the time of one launch goes.
void smallKernelExperiments() {
  namespace fm = fusedmlp;
  std::printf("\nsmall-token kernels, dim %ld, hidden %ld, bf16: configurations and phase timelines (us).\n"
              "Alone (a launch after a synchronize; latest block, after the first block starts): phase A done,\n"
              "past the grid barrier, phase-B GEMM done, partials published, end (the kernel's span). One pass:\n"
              "act written (and shared in the cluster), past the L2 group's barrier (else -), down GEMM and\n"
              "atomics issued, arrived, end.\n"
              "Next (the second of two back-to-back launches, after the first one ends; negative = while it\n"
              "runs): its first block starts, its first block gets past the dependency wait, its last block ends.\n"
              "blocks: per multiprocessor that fit; team: blocks that share act, cN a cluster, LN an L2 group\n"
              "(LN/cM: clusters of M load x together; a w: the Hopper kernel, wgmma);\n"
              "conv: blocks that convert the one pass's accumulator\n",
              long(kDim), long(kHidden));
  std::printf("%7s  %-40s %9s %7s %8s %7s %8s %7s | %6s %6s %6s | %8s %6s %5s %7s %4s\n", "tokens", "configuration",
              "us/launch", "A done", "barrier", "B gemm", "publish", "end", "start", "deps", "end", "rel.err", "blocks",
              "grid", "team", "conv");
  const at::TensorOptions bf = at::TensorOptions().dtype(at::kBFloat16).device(at::kCUDA, 0);
  for (int64_t tokens : {int64_t(1), int64_t(16), int64_t(32), int64_t(64), fm::kOnePassWgmmaMaxTokens}) {
    const at::Tensor x = at::randn({tokens, kDim}, bf);
    FusedMlp mlp(at::randn({kHidden, kDim}, bf) / 27.7, at::randn({kHidden, kDim}, bf) / 27.7,
                 at::randn({kDim, kHidden}, bf) / 55.4);
    const bool rows_only = tokens > fm::kSmallMaxTokens;  // only the Hopper one pass, in row tiles
    const at::Tensor ref =
        mlp.forward(x, rows_only ? FusedMlpPath::LargeMma : FusedMlpPath::SmallDeterministic).to(at::kFloat);
    constexpr fm::SmallMlpKernel kAuto = fm::SmallMlpKernel::Auto, kOne = fm::SmallMlpKernel::OnePass,
                                 kTwo = fm::SmallMlpKernel::TwoPhase;
    struct Config {
      const char* name;
      fm::SmallMlpKernel kernel;
      bool prefetch, rotate, atomic;
      int warps, stages, groups;  // 0: the planner's
      int launch;                 // 0: the planner's, 1: ordinary without early start, 2: cooperative
      int cluster = 0;            // one pass: blocks per cluster (0: the planner's)
      int converters = 0;         // one pass: blocks that convert the accumulator (0: the planner's)
      int copies = 0;             // one pass: accumulators (0: the planner's)
      int split = -1;             // two phases: fixed-order sums split over the slices (-1: the planner's)
      int l2_group = 0;           // one pass: blocks that share act through L2 (0: the planner's)
      int wgmma = 0;              // one pass with L2 groups: 1 the Hopper kernel, -1 mma.sync (0: the planner's)
    };
    const Config configs[] = {{"default", kAuto, false, true, false, 0, 0, 0, 0},
                              {"one pass", kOne, false, true, true, 0, 0, 0, 0},
                              {"one pass, 1 accumulator", kOne, false, true, true, 0, 0, 0, 0, 0, 0, 1},
                              {"one pass, 1 accumulator, 16 conv", kOne, false, true, true, 0, 0, 0, 0, 0, 16, 1},
                              {"one pass, 4 accumulators", kOne, false, true, true, 0, 0, 0, 0, 0, 0, 4},
                              {"one pass, 1 converting block", kOne, false, true, true, 0, 0, 0, 0, 0, 1},
                              {"one pass, 4 converting blocks", kOne, false, true, true, 0, 0, 0, 0, 0, 4},
                              {"one pass, 16 converting blocks", kOne, false, true, true, 0, 0, 0, 0, 0, 16},
                              {"one pass, 64 converting blocks", kOne, false, true, true, 0, 0, 0, 0, 0, 64},
                              {"one pass, no clusters", kOne, false, true, true, 0, 0, 0, 0, 1},
                              {"one pass, no early start", kOne, false, true, true, 0, 0, 0, 1},
                              {"one pass, clusters of 4", kOne, false, true, true, 0, 0, 0, 0, 4},
                              {"one pass, clusters of 8", kOne, false, true, true, 0, 0, 0, 0, 8},
                              {"one pass, 3 groups, clusters of 2", kOne, false, true, true, 0, 0, 3, 0, 2},
                              {"one pass, 4 groups, clusters of 4", kOne, false, true, true, 0, 0, 4, 0, 4},
                              {"one pass, clusters (no L2 groups)", kOne, false, true, true, 0, 0, 0, 0, 0, 0, 0, -1, 1},
                              {"one pass, L2 groups of 4", kOne, false, true, true, 0, 0, 0, 0, 0, 0, 0, -1, 4},
                              {"one pass, L2 groups of 8", kOne, false, true, true, 0, 0, 0, 0, 0, 0, 0, -1, 8},
                              {"one pass, L2 groups of 16", kOne, false, true, true, 0, 0, 0, 0, 0, 0, 0, -1, 16},
                              {"one pass, L2 groups of 8, x by clusters of 2", kOne, false, true, true, 0, 0, 0, 0, 2, 0, 0, -1, 8},
                              {"one pass, L2 groups of 8, x by clusters of 4", kOne, false, true, true, 0, 0, 0, 0, 4, 0, 0, -1, 8},
                              {"one pass, L2 groups of 4, x by clusters of 2", kOne, false, true, true, 0, 0, 0, 0, 2, 0, 0, -1, 4},
                              {"one pass, mma.sync (no wgmma)", kOne, false, true, true, 0, 0, 0, 0, 0, 0, 0, -1, 0, -1},
                              {"one pass, wgmma, L2 8, x by clusters of 2", kOne, false, true, true, 0, 0, 0, 0, 2, 0, 0, -1, 8, 1},
                              {"one pass, wgmma, L2 8, no x clusters", kOne, false, true, true, 0, 0, 0, 0, 0, 0, 0, -1, 8, 1},
                              {"one pass, wgmma, L2 16, x by clusters of 2", kOne, false, true, true, 0, 0, 0, 0, 2, 0, 0, -1, 16, 1},
                              {"one pass, wgmma, L2 4, x by clusters of 2", kOne, false, true, true, 0, 0, 0, 0, 2, 0, 0, -1, 4, 1},
                              {"one pass, 2 groups/block", kOne, false, true, true, 0, 0, 2, 0},
                              {"one pass, 4 groups/block", kOne, false, true, true, 0, 0, 4, 0},
                              {"one pass, 8 groups/block", kOne, false, true, true, 0, 0, 8, 0},
                              {"two phases", kTwo, false, true, false, 0, 0, 0, 0},
                              {"two phases, no early start", kTwo, false, true, false, 0, 0, 0, 1},
                              {"two phases, cooperative launch", kTwo, false, true, false, 0, 0, 0, 2},
                              {"two phases, 8 warps", kTwo, false, true, false, 8, 0, 0, 0},
                              {"two phases, 16 warps", kTwo, false, true, false, 16, 0, 0, 0},
                              {"two phases, 8 warps, 6 stages", kTwo, false, true, false, 8, 6, 0, 0},
                              {"two phases, no K rotation", kTwo, false, false, false, 0, 0, 0, 0},
                              {"two phases, atomic reduction", kTwo, false, true, true, 0, 0, 0, 0},
                              {"two phases, last slice adds up", kTwo, false, true, false, 0, 0, 0, 0, 0, 0, 0},
                              {"two phases, slices add up a share", kTwo, false, true, false, 0, 0, 0, 0, 0, 0, 1},
                              {"two phases, with L2 prefetch", kTwo, true, true, false, 0, 0, 0, 0}};
    for (const Config& c : configs) {
      fm::SmallMlpTuning tuning;
      tuning.kernel = c.kernel;
      tuning.warps = c.warps;
      tuning.stages = c.stages;
      tuning.a_groups = c.groups;
      tuning.cluster = c.cluster;
      tuning.converters = c.converters;
      tuning.copies = c.copies;
      tuning.l2_group = c.l2_group;
      tuning.wgmma = c.wgmma;
      fm::SmallMlpPlan plan;
      try {
        plan = fm::planSmallMlp(tokens, kDim, kHidden, fm::ElemType::BF16, 0, tuning);
      } catch (const std::invalid_argument& e) {
        if (!rows_only) throw;
        std::printf("%7ld  %-40s not run: %s\n", long(tokens), c.name, e.what());
        continue;
      }
      if (!plan.one_pass) {
        plan.prefetch_weights = c.prefetch;
        plan.rotate_k = c.rotate;
        plan.atomic_reduce = c.atomic;
        if (c.split >= 0) plan.split_sums = c.split == 1;
      }
      if (c.launch != 0) {
        plan.pdl = false;
        plan.cooperative = c.launch == 2;
      }
      const at::Tensor ws = at::zeros({int64_t(plan.workspace_bytes)}, bf.dtype(at::kByte));
      constexpr int P = fm::kSmallTimelinePoints;
      const at::Tensor timelines = at::zeros({2, plan.grid, P}, bf.dtype(at::kLong));
      auto* tl = reinterpret_cast<unsigned long long*>(timelines.data_ptr());
      at::Tensor y = at::empty_like(x);
      cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
      auto launch = [&](unsigned long long* t) {
        fm::launchSmallMlp(plan, fm::ElemType::BF16, x.data_ptr(), mlp.gateUpInterleaved().data_ptr(),
                           mlp.downWeight().data_ptr(), y.data_ptr(), ws.data_ptr(), stream, t);
      };
      for (int i = 0; i < 20; ++i) launch(nullptr);
      c10::cuda::device_synchronize();
      constexpr int kLaunches = 2000;
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < kLaunches; ++i) launch(nullptr);
      c10::cuda::device_synchronize();
      const double per = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / kLaunches;
      // Timelines: medians over pairs of back-to-back launches. Alone: the first
      // launch of a pair (after a synchronize), latest block, after its first
      // block starts. Overlapped: the second launch, first block to start or to
      // get past the dependency wait, latest block done, after the first ends.
      std::vector<double> alone[P], next_start, next_deps, next_end;
      for (int i = 0; i < 21; ++i) {
        c10::cuda::device_synchronize();
        launch(tl);
        launch(tl + plan.grid * P);
        const at::Tensor t = timelines.cpu();
        const int64_t* v = t.data_ptr<int64_t>();
        auto earliest = [&](int run, int point) {
          int64_t e = v[(run * plan.grid) * P + point];
          for (int blk = 0; blk < plan.grid; ++blk) e = std::min(e, v[(run * plan.grid + blk) * P + point]);
          return e;
        };
        auto latest = [&](int run, int point) {
          int64_t l = 0;
          for (int blk = 0; blk < plan.grid; ++blk) l = std::max(l, v[(run * plan.grid + blk) * P + point]);
          return l;
        };
        const int64_t first = earliest(0, fm::kTimelineStart), first_end = latest(0, fm::kTimelineEnd);
        for (int k = 1; k < P; ++k) alone[k].push_back((latest(0, k) - first) * 1e-3);
        next_start.push_back((earliest(1, fm::kTimelineStart) - first_end) * 1e-3);
        next_deps.push_back((earliest(1, fm::kTimelineDepsMet) - first_end) * 1e-3);
        next_end.push_back((latest(1, fm::kTimelineEnd) - first_end) * 1e-3);
      }
      auto median = [](std::vector<double> v) {
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        return v[v.size() / 2];
      };
      const double err = ((y.to(at::kFloat) - ref).norm() / ref.norm()).item<double>();
      char barrier[16] = "-";  // the one-pass kernel has none
      if (!plan.one_pass || plan.l2_group > 1) {
        std::snprintf(barrier, sizeof barrier, "%.1f", median(alone[fm::kTimelineBarrier]));
      }
      char team[16];
      if (plan.l2_group > 1) {
        const char* kernel = plan.wgmma ? "w" : "";
        if (plan.cluster > 1) {
          std::snprintf(team, sizeof team, "L%d/c%d%s", plan.l2_group, plan.cluster, kernel);
        } else {
          std::snprintf(team, sizeof team, "L%d%s", plan.l2_group, kernel);
        }
      } else {
        std::snprintf(team, sizeof team, "c%d", plan.cluster);
      }
      std::printf("%7ld  %-40s %9.1f %7.1f %8s %7.1f %8.1f %7.1f | %6.1f %6.1f %6.1f | %8.1e %3d/SM %5d %7s %4d\n",
                  long(tokens), c.name, per * 1e6, median(alone[fm::kTimelineADone]), barrier,
                  median(alone[fm::kTimelineBGemm]),
                  median(alone[fm::kTimelinePublished]), median(alone[fm::kTimelineEnd]), median(next_start),
                  median(next_deps), median(next_end), err, plan.blocks_per_sm, plan.grid, team, plan.converters);
    }
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
    smallKernelExperiments();
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
  if (!filtered && small_kernels) smallKernelExperiments();
  benchmark::Shutdown();
  return 0;
}

#else  // a build without CUDA has no fused kernels to time

int main() {
  std::printf("no CUDA GPU: this fuselab build has no CUDA, so there is nothing to benchmark\n");
  return 0;
}

#endif
