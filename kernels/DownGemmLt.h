// The fused MLP's down projection, y [m, dim] = act [m, hidden] x down [dim,
// hidden]^T (bf16 or fp16, fp32 accumulation), through cuBLASLt directly:
// the layouts, the algorithm and the workspace are chosen once per token
// count, so a forward enqueues one cublasLtMatmul and nothing else. Through
// LibTorch (at::mm_out) the same GEMM cost 14-20 us of host time per call on
// the H100 (dispatch and cuBLAS's heuristic query on every call), more than
// the GEMM itself at up to 2048 tokens.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <memory>

namespace fuselab {

class DownGemmLt {
 public:
  // dtype_bf16: bf16 operands, else fp16. `device` is the weights' device.
  DownGemmLt(int64_t dim, int64_t hidden, bool dtype_bf16, int device);
  ~DownGemmLt();
  DownGemmLt(const DownGemmLt&) = delete;
  DownGemmLt& operator=(const DownGemmLt&) = delete;

  // Enqueues y = act x down^T on `stream`. The first call for a token count
  // (outside stream capture) times cuBLASLt's candidate algorithms and their
  // variants (split of K, cluster shape) on this GPU by their device time and
  // keeps the fastest; during a capture it takes the heuristic's first choice.
  void run(const void* act, const void* down, void* y, int64_t m, cudaStream_t stream);

  // The kept algorithm's index among the candidates for m tokens (0 = the
  // heuristic's first choice, 1-7 its others, then variants), or -1 before
  // the first run with m: for benchmarks.
  int chosenCandidate(int64_t m) const;

  // For tests: how many candidates were planned for m tokens (0 before the
  // first run with m), and a run of candidate k of them.
  int candidateCount(int64_t m) const;
  void runCandidate(int k, const void* act, const void* down, void* y, int64_t m, cudaStream_t stream);

 private:
  struct Plan;
  Plan& planFor(int64_t m, const void* act, const void* down, void* y, cudaStream_t stream);
  // Enqueues candidate k of the plan; returns cuBLAS's status.
  int launch(const Plan& plan, int k, const void* act, const void* down, void* y, cudaStream_t stream) const;

  int64_t dim_, hidden_;
  bool bf16_;
  int device_;
  void* handle_ = nullptr;     // cublasLtHandle_t
  void* workspace_ = nullptr;  // device memory, kWorkspaceBytes
  std::map<int64_t, std::unique_ptr<Plan>> plans_;
};

}  // namespace fuselab
