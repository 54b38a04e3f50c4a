// kernels_mlp_variants' small-token section: the small-token fused MLP
// kernel driven directly, in several configurations, with its per-block
// phase timeline (%globaltimer): where the time of one launch goes.
#pragma once

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAFunctions.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <stdexcept>
#include <vector>

#include "kernels/FusedMlp.h"
#include "kernels/FusedMlpKernels.h"

namespace fuselab::bench {

namespace fm = fusedmlp;

struct SmallKernelConfig {
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

inline const std::vector<SmallKernelConfig>& smallKernelConfigs() {
  constexpr fm::SmallMlpKernel kAuto = fm::SmallMlpKernel::Auto, kOne = fm::SmallMlpKernel::OnePass,
                               kTwo = fm::SmallMlpKernel::TwoPhase;
  static const std::vector<SmallKernelConfig> configs = {
      {"default", kAuto, false, true, false, 0, 0, 0, 0},
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
      {"two phases, with L2 prefetch", kTwo, true, true, false, 0, 0, 0, 0}
  };
  return configs;
}

inline void printSmallKernelHeader(int64_t dim, int64_t hidden) {
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
              long(dim), long(hidden));
  std::printf("%7s  %-40s %9s %7s %8s %7s %8s %7s | %6s %6s %6s | %8s %6s %5s %7s %4s\n", "tokens", "configuration",
              "us/launch", "A done", "barrier", "B gemm", "publish", "end", "start", "deps", "end", "rel.err", "blocks",
              "grid", "team", "conv");
}

// The planner's plan with the configuration's overrides; none (and a line
// saying why) where a size above the small kernels' cannot run it.
inline std::optional<fm::SmallMlpPlan> smallKernelPlan(const SmallKernelConfig& c, int64_t tokens, int64_t dim,
                                                       int64_t hidden, bool rows_only) {
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
    plan = fm::planSmallMlp(tokens, dim, hidden, fm::ElemType::BF16, 0, tuning);
  } catch (const std::invalid_argument& e) {
    if (!rows_only) throw;
    std::printf("%7ld  %-40s not run: %s\n", long(tokens), c.name, e.what());
    return std::nullopt;
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
  return plan;
}

inline double medianOf(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// One configuration's times: per launch over back-to-back launches, and the
// phase timelines' medians over pairs of launches (us).
struct SmallKernelTimes {
  double per_launch_s = 0;
  double alone[fm::kSmallTimelinePoints] = {};  // first launch of a pair, latest block, after its first starts
  double next_start = 0, next_deps = 0, next_end = 0;  // second launch, after the first ends
};

// `launch(timeline)` enqueues one forward, writing its blocks' timeline there
// when not null.
inline SmallKernelTimes timeSmallKernel(const fm::SmallMlpPlan& plan,
                                        const std::function<void(unsigned long long*)>& launch,
                                        const at::TensorOptions& options) {
  SmallKernelTimes out;
  for (int i = 0; i < 20; ++i) launch(nullptr);
  c10::cuda::device_synchronize();
  constexpr int kLaunches = 2000;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kLaunches; ++i) launch(nullptr);
  c10::cuda::device_synchronize();
  out.per_launch_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / kLaunches;
  // Timelines: medians over pairs of back-to-back launches. Alone: the first
  // launch of a pair (after a synchronize), latest block, after its first
  // block starts. Overlapped: the second launch, first block to start or to
  // get past the dependency wait, latest block done, after the first ends.
  constexpr int P = fm::kSmallTimelinePoints;
  const at::Tensor timelines = at::zeros({2, plan.grid, P}, options.dtype(at::kLong));
  auto* tl = reinterpret_cast<unsigned long long*>(timelines.data_ptr());
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
  for (int k = 1; k < P; ++k) out.alone[k] = medianOf(alone[k]);
  out.next_start = medianOf(next_start);
  out.next_deps = medianOf(next_deps);
  out.next_end = medianOf(next_end);
  return out;
}

inline void printSmallKernelRow(int64_t tokens, const SmallKernelConfig& c, const fm::SmallMlpPlan& plan,
                                const SmallKernelTimes& t, double err) {
  char barrier[16] = "-";  // the one-pass kernel has none
  if (!plan.one_pass || plan.l2_group > 1) std::snprintf(barrier, sizeof barrier, "%.1f", t.alone[fm::kTimelineBarrier]);
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
              long(tokens), c.name, t.per_launch_s * 1e6, t.alone[fm::kTimelineADone], barrier,
              t.alone[fm::kTimelineBGemm], t.alone[fm::kTimelinePublished], t.alone[fm::kTimelineEnd], t.next_start,
              t.next_deps, t.next_end, err, plan.blocks_per_sm, plan.grid, team, plan.converters);
}

inline void smallKernelExperiments(int64_t dim, int64_t hidden) {
  printSmallKernelHeader(dim, hidden);
  const at::TensorOptions bf = at::TensorOptions().dtype(at::kBFloat16).device(at::kCUDA, 0);
  for (int64_t tokens : {int64_t(1), int64_t(16), int64_t(32), int64_t(64), fm::kOnePassWgmmaMaxTokens}) {
    const at::Tensor x = at::randn({tokens, dim}, bf);
    FusedMlp mlp(at::randn({hidden, dim}, bf) / 27.7, at::randn({hidden, dim}, bf) / 27.7,
                 at::randn({dim, hidden}, bf) / 55.4);
    const bool rows_only = tokens > fm::kSmallMaxTokens;  // only the Hopper one pass, in row tiles
    const at::Tensor ref =
        mlp.forward(x, rows_only ? FusedMlpPath::LargeMma : FusedMlpPath::SmallDeterministic).to(at::kFloat);
    for (const SmallKernelConfig& c : smallKernelConfigs()) {
      const std::optional<fm::SmallMlpPlan> plan = smallKernelPlan(c, tokens, dim, hidden, rows_only);
      if (!plan) continue;
      const at::Tensor ws = at::zeros({int64_t(plan->workspace_bytes)}, bf.dtype(at::kByte));
      at::Tensor y = at::empty_like(x);
      cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
      auto launch = [&](unsigned long long* timeline) {
        fm::launchSmallMlp(*plan, fm::ElemType::BF16, x.data_ptr(), mlp.gateUpInterleaved().data_ptr(),
                           mlp.downWeight().data_ptr(), y.data_ptr(), ws.data_ptr(), stream, timeline);
      };
      const SmallKernelTimes times = timeSmallKernel(*plan, launch, bf);
      const double err = ((y.to(at::kFloat) - ref).norm() / ref.norm()).item<double>();
      printSmallKernelRow(tokens, c, *plan, times, err);
    }
  }
}

}  // namespace fuselab::bench
