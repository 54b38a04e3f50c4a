// Built with CUDA only (FusedMlp.cpp uses it on its large path).
#ifdef FUSELAB_HAVE_CUDA
#include "kernels/DownGemmLt.h"

#include <cublasLt.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace fuselab {

namespace {

constexpr size_t kWorkspaceBytes = size_t(32) << 20;  // what cuBLAS suggests for Hopper
constexpr int kCandidates = 8;
constexpr int kTimedRuns = 20;  // launches per timed graph
constexpr int kReplays = 3;     // timed replays of it

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("fused_mlp down GEMM: ") + what + " failed (cuBLAS status " +
                             std::to_string(int(s)) + ")");
}
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("fused_mlp down GEMM: ") + what + ": " + cudaGetErrorString(e));
}

cublasLtHandle_t lt(void* h) { return static_cast<cublasLtHandle_t>(h); }

// Times launches of one candidate algorithm by their device time: kTimedRuns
// launches captured into a CUDA graph and replayed, so that cuBLASLt's host
// time per call does not decide. Launched back to back, 20 calls took 10-18 us
// each on the H200 at 256-1024 tokens whatever the algorithm, while the
// GEMM's device time is about 5-8 us: the pick was noise. Runs on a stream of
// its own, ordered after the caller's stream and before its next work.
class CandidateTimer {
 public:
  explicit CandidateTimer(cudaStream_t caller) : caller_(caller) {
    check(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking), "timing stream");
    check(cudaEventCreate(&start_), "event");
    check(cudaEventCreate(&end_), "event");
    check(cudaEventRecord(start_, caller_), "event");
    check(cudaStreamWaitEvent(side_, start_), "stream order");
  }
  ~CandidateTimer() {
    cudaEventRecord(end_, side_);
    cudaStreamWaitEvent(caller_, end_);
    cudaStreamSynchronize(side_);
    cudaEventDestroy(end_);
    cudaEventDestroy(start_);
    cudaStreamDestroy(side_);
  }
  CandidateTimer(const CandidateTimer&) = delete;
  CandidateTimer& operator=(const CandidateTimer&) = delete;

  // Microseconds per launch, or -1 where the candidate refuses to run or to be captured.
  template <class Launch> float time(const Launch& launch) {
    if (launch(side_) != CUBLAS_STATUS_SUCCESS) return -1;  // a candidate may refuse at run time
    cudaGraph_t graph = nullptr;
    if (cudaStreamBeginCapture(side_, cudaStreamCaptureModeThreadLocal) != cudaSuccess) return fail(nullptr, nullptr);
    bool captured = true;
    for (int r = 0; r < kTimedRuns && captured; ++r) captured = launch(side_) == CUBLAS_STATUS_SUCCESS;
    captured = cudaStreamEndCapture(side_, &graph) == cudaSuccess && captured;  // the capture always ends
    cudaGraphExec_t exec = nullptr;
    if (!captured || cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) return fail(graph, nullptr);
    bool timed = cudaGraphLaunch(exec, side_) == cudaSuccess;  // warm: the graph's first upload
    float best = -1;
    for (int r = 0; r < kReplays && timed; ++r) {  // the fastest replay: a candidate is not judged by one slow one
      float ms = 0;
      timed = cudaEventRecord(start_, side_) == cudaSuccess && cudaGraphLaunch(exec, side_) == cudaSuccess &&
              cudaEventRecord(end_, side_) == cudaSuccess && cudaEventSynchronize(end_) == cudaSuccess &&
              cudaEventElapsedTime(&ms, start_, end_) == cudaSuccess;
      if (timed && (best < 0 || ms < best)) best = ms;
    }
    if (!timed) return fail(graph, exec);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    return best * 1000.0f / kTimedRuns;
  }

 private:
  static float fail(cudaGraph_t graph, cudaGraphExec_t exec) {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();  // a candidate that cannot be timed is skipped, not an error of the forward
    return -1;
  }

  cudaStream_t caller_, side_ = nullptr;
  cudaEvent_t start_ = nullptr, end_ = nullptr;
};

// cuBLASLt's heuristic offers 8 configurations. The same kernels with another
// split of K or another cluster shape are often faster at small token counts
// (H200, us of device time, heuristic's best / best variant: 128 tokens
// 6.3 / 5.5, 256 tokens 6.7 / 6.4; searched over every algorithm, tile,
// stage count, split, reduction and cluster shape, the winners were all such
// variants), so those variants are timed too. Split sums are reduced in fp32
// in the workspace: deterministic, one rounding to the output type.
std::vector<cublasLtMatmulAlgo_t> withVariants(cublasLtHandle_t handle, cublasLtMatmulDesc_t op,
                                               cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                               cublasLtMatrixLayout_t c,
                                               const std::vector<cublasLtMatmulAlgo_t>& heuristic) {
  constexpr uint32_t kSplits[] = {1, 2, 4, 8};
  constexpr uint16_t kClusters[] = {CUBLASLT_CLUSTER_SHAPE_AUTO, CUBLASLT_CLUSTER_SHAPE_1x1x1,
                                    CUBLASLT_CLUSTER_SHAPE_2x1x1, CUBLASLT_CLUSTER_SHAPE_1x2x1,
                                    CUBLASLT_CLUSTER_SHAPE_2x2x1};
  std::vector<cublasLtMatmulAlgo_t> all = heuristic;
  auto known = [&all](const cublasLtMatmulAlgo_t& x) {
    return std::any_of(all.begin(), all.end(), [&x](const auto& y) { return std::memcmp(&x, &y, sizeof x) == 0; });
  };
  for (const cublasLtMatmulAlgo_t& base : heuristic) {
    int32_t splits_supported = 0;
    uint32_t reductions = 0;
    size_t written = 0;
    cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT, &splits_supported,
                                      sizeof splits_supported, &written);
    cublasLtMatmulAlgoCapGetAttribute(&base, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK, &reductions, sizeof reductions,
                                      &written);
    for (uint32_t splits : kSplits) {
      const uint32_t reduction = splits > 1 ? CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE : CUBLASLT_REDUCTION_SCHEME_NONE;
      if (splits > 1 && (!splits_supported || !(reductions & reduction))) continue;
      for (uint16_t cluster : kClusters) {
        cublasLtMatmulAlgo_t v = base;
        cublasLtMatmulAlgoConfigSetAttribute(&v, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splits, sizeof splits);
        cublasLtMatmulAlgoConfigSetAttribute(&v, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &reduction, sizeof reduction);
        cublasLtMatmulAlgoConfigSetAttribute(&v, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster, sizeof cluster);
        cublasLtMatmulHeuristicResult_t check{};
        if (cublasLtMatmulAlgoCheck(handle, op, a, b, c, c, &v, &check) != CUBLAS_STATUS_SUCCESS ||
            check.workspaceSize > kWorkspaceBytes || known(v))
          continue;
        all.push_back(v);
      }
    }
  }
  return all;
}

}  // namespace

// Row-major y [m, dim] = act [m, hidden] x down [dim, hidden]^T is, in
// cuBLAS's column-major terms, y^T [dim, m] = down^T x act^T: A = down seen
// as [hidden, dim] (transposed), B = act seen as [hidden, m].
struct DownGemmLt::Plan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  std::vector<cublasLtMatmulAlgo_t> candidates;  // the heuristic's first, then the rest and their variants
  int chosen = 0;

  ~Plan() {
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

DownGemmLt::DownGemmLt(int64_t dim, int64_t hidden, bool dtype_bf16, int device)
    : dim_(dim), hidden_(hidden), bf16_(dtype_bf16), device_(device) {
  int previous = 0;
  check(cudaGetDevice(&previous), "current device");
  check(cudaSetDevice(device), "select the weights' device");
  cublasLtHandle_t h = nullptr;
  const cublasStatus_t s = cublasLtCreate(&h);
  const cudaError_t e = s == CUBLAS_STATUS_SUCCESS ? cudaMalloc(&workspace_, kWorkspaceBytes) : cudaSuccess;
  cudaSetDevice(previous);
  handle_ = h;
  if (s != CUBLAS_STATUS_SUCCESS || e != cudaSuccess) {
    if (h) cublasLtDestroy(h);
    check(s, "cublasLtCreate");
    check(e, "workspace allocation");
  }
}

DownGemmLt::~DownGemmLt() {
  plans_.clear();
  if (workspace_) cudaFree(workspace_);
  if (handle_) cublasLtDestroy(lt(handle_));
}

DownGemmLt::Plan& DownGemmLt::planFor(int64_t m, const void* act, const void* down, void* y, cudaStream_t stream) {
  if (auto it = plans_.find(m); it != plans_.end()) return *it->second;
  auto plan = std::make_unique<Plan>();
  const cudaDataType_t type = bf16_ ? CUDA_R_16BF : CUDA_R_16F;
  check(cublasLtMatmulDescCreate(&plan->op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "matmul descriptor");
  const cublasOperation_t transpose = CUBLAS_OP_T, none = CUBLAS_OP_N;
  check(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose), "op A");
  check(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof none), "op B");
  check(cublasLtMatrixLayoutCreate(&plan->a, type, hidden_, dim_, hidden_), "layout of down");
  check(cublasLtMatrixLayoutCreate(&plan->b, type, hidden_, m, hidden_), "layout of act");
  check(cublasLtMatrixLayoutCreate(&plan->c, type, dim_, m, dim_), "layout of y");

  cublasLtMatmulPreference_t pref = nullptr;
  check(cublasLtMatmulPreferenceCreate(&pref), "preference");
  const uint64_t ws = kWorkspaceBytes;
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  std::vector<cublasLtMatmulHeuristicResult_t> heuristic(kCandidates);
  int found = 0;
  const cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(lt(handle_), plan->op, plan->a, plan->b, plan->c, plan->c,
                                                          pref, kCandidates, heuristic.data(), &found);
  cublasLtMatmulPreferenceDestroy(pref);
  check(s, "algorithm heuristic");
  if (found == 0) throw std::runtime_error("fused_mlp down GEMM: cuBLASLt has no algorithm for this shape");
  for (int k = 0; k < found; ++k) plan->candidates.push_back(heuristic[size_t(k)].algo);

  // Time the candidates on the real operands, unless this call is being
  // captured into a CUDA graph (no synchronization allowed there).
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  check(cudaStreamIsCapturing(stream, &capturing), "capture status");
  if (capturing == cudaStreamCaptureStatusNone) {
    plan->candidates = withVariants(lt(handle_), plan->op, plan->a, plan->b, plan->c, plan->candidates);
    CandidateTimer timer(stream);
    float best = -1;
    for (int k = 0; k < int(plan->candidates.size()); ++k) {
      const float us = timer.time([&](cudaStream_t s) { return cublasStatus_t(launch(*plan, k, act, down, y, s)); });
      if (us >= 0 && (best < 0 || us < best)) best = us, plan->chosen = k;
    }
  }
  return *plans_.emplace(m, std::move(plan)).first->second;
}

int DownGemmLt::launch(const Plan& plan, int k, const void* act, const void* down, void* y,
                       cudaStream_t stream) const {
  const float alpha = 1.0f, beta = 0.0f;
  return cublasLtMatmul(lt(handle_), plan.op, &alpha, down, plan.a, act, plan.b, &beta, y, plan.c, y, plan.c,
                        &plan.candidates[size_t(k)], workspace_, kWorkspaceBytes, stream);
}

void DownGemmLt::run(const void* act, const void* down, void* y, int64_t m, cudaStream_t stream) {
  const Plan& plan = planFor(m, act, down, y, stream);
  check(cublasStatus_t(launch(plan, plan.chosen, act, down, y, stream)), "cublasLtMatmul");
}

void DownGemmLt::runCandidate(int k, const void* act, const void* down, void* y, int64_t m, cudaStream_t stream) {
  if (k < 0 || k >= candidateCount(m))
    throw std::out_of_range("fused_mlp down GEMM: no candidate " + std::to_string(k) + " for " + std::to_string(m) +
                            " tokens");
  check(cublasStatus_t(launch(*plans_.at(m), k, act, down, y, stream)), "cublasLtMatmul");
}

int DownGemmLt::candidateCount(int64_t m) const {
  auto it = plans_.find(m);
  return it == plans_.end() ? 0 : int(it->second->candidates.size());
}

int DownGemmLt::chosenCandidate(int64_t m) const {
  auto it = plans_.find(m);
  return it == plans_.end() ? -1 : it->second->chosen;
}

}  // namespace fuselab

#endif  // FUSELAB_HAVE_CUDA
