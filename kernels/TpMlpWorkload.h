// tp_mlp: the mlp workload's GeGLU MLP split Megatron-style across the ranks
// of a job (tensor parallelism): rank r holds rows [r*h/N, (r+1)*h/N) of
// gate and up (their output columns) and the same columns of down (its input
// rows), computes down_r(gelu_tanh(gate_r(x)) * up_r(x)), a partial sum of
// y, and one all-reduce (c10d: NCCL or Gloo) adds the partials. The weights
// are the mlp workload's (same seeds), so y equals mlp's within the dtype's
// rounding. Variants:
//   eager:   LibTorch ops on the shard, then one all-reduce of y
//   fused:   our fused kernel (kernels/FusedMlp.h) on the shard where it
//            applies (CUDA, bf16/fp16, hidden/N a multiple of 8); elsewhere
//            eager, and describe() says why
//   overlap: the forward in kTpMlpChunks chunks of tokens, each chunk's
//            all-reduce issued as soon as its down GEMM is done so it runs
//            while the next chunk's GEMMs do; on NCCL captured once and
//            replayed as a CUDA graph (no host time between chunks), eager
//            on Gloo or when a rank cannot capture (describe() says why)
// A test hook: FUSELAB_TEST_RANK_FAULT="R:abort" (or "R:hang") makes rank R
// abort (or hang) in its first forward, to check how a launcher copes.
#pragma once

#include <memory>

#include "kernels/ProcessGroupSetup.h"
#include "kernels/TorchWorkload.h"
#include "kernels/WorkloadRegistry.h"

namespace fuselab {

// Two chunks: on two H200s four were slower at 2048 and 8192 tokens (smaller
// GEMMs, and NCCL's kernels beside them twice as often; DESIGN.md).
inline constexpr int kTpMlpChunks = 2;
inline constexpr const char* kRankFaultEnv = "FUSELAB_TEST_RANK_FAULT";

// Joins the job described by `env` (ProcessGroupSetup.h) and builds rank
// env.rank's shard. params.ranks must equal env.world_size. Throws
// WorkloadError (sizes that do not split, a failed rendezvous).
std::unique_ptr<TorchWorkload> makeTpMlpWorkload(const WorkloadParams& params, const RankEnv& env);

WorkloadEntry tpMlpEntry();

}  // namespace fuselab
