// Built with CUDA only (FusedMlp.cpp uses it on its large path).
#ifdef FUSELAB_HAVE_CUDA
#include "kernels/DownGemmLt.h"

#include <cublasLt.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace fuselab {

namespace {

constexpr size_t kWorkspaceBytes = size_t(32) << 20;  // what cuBLAS suggests for Hopper
constexpr int kCandidates = 8;
constexpr int kTimedRuns = 20;

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

}  // namespace

// Row-major y [m, dim] = act [m, hidden] x down [dim, hidden]^T is, in
// cuBLAS's column-major terms, y^T [dim, m] = down^T x act^T: A = down seen
// as [hidden, dim] (transposed), B = act seen as [hidden, m].
struct DownGemmLt::Plan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  std::vector<cublasLtMatmulHeuristicResult_t> candidates;
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
  plan->candidates.resize(kCandidates);
  int found = 0;
  const cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(lt(handle_), plan->op, plan->a, plan->b, plan->c, plan->c,
                                                          pref, kCandidates, plan->candidates.data(), &found);
  cublasLtMatmulPreferenceDestroy(pref);
  check(s, "algorithm heuristic");
  if (found == 0) throw std::runtime_error("fused_mlp down GEMM: cuBLASLt has no algorithm for this shape");
  plan->candidates.resize(size_t(found));

  // Time the candidates on the real operands, unless this call is being
  // captured into a CUDA graph (no synchronization allowed there).
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  check(cudaStreamIsCapturing(stream, &capturing), "capture status");
  if (capturing == cudaStreamCaptureStatusNone && found > 1) {
    cudaEvent_t start, end;
    check(cudaEventCreate(&start), "event");
    check(cudaEventCreate(&end), "event");
    const float alpha = 1.0f, beta = 0.0f;
    float best = -1;
    for (int k = 0; k < found; ++k) {
      auto launch = [&] {
        return cublasLtMatmul(lt(handle_), plan->op, &alpha, down, plan->a, act, plan->b, &beta, y, plan->c, y,
                              plan->c, &plan->candidates[k].algo, workspace_, kWorkspaceBytes, stream);
      };
      if (launch() != CUBLAS_STATUS_SUCCESS) continue;  // a candidate may refuse at run time: skip it
      cudaEventRecord(start, stream);
      for (int r = 0; r < kTimedRuns; ++r) launch();
      cudaEventRecord(end, stream);
      float ms = 0;
      if (cudaEventSynchronize(end) != cudaSuccess || cudaEventElapsedTime(&ms, start, end) != cudaSuccess) continue;
      if (best < 0 || ms < best) best = ms, plan->chosen = k;
    }
    cudaEventDestroy(start);
    cudaEventDestroy(end);
  }
  return *plans_.emplace(m, std::move(plan)).first->second;
}

void DownGemmLt::run(const void* act, const void* down, void* y, int64_t m, cudaStream_t stream) {
  Plan& plan = planFor(m, act, down, y, stream);
  const float alpha = 1.0f, beta = 0.0f;
  check(cublasLtMatmul(lt(handle_), plan.op, &alpha, down, plan.a, act, plan.b, &beta, y, plan.c, y, plan.c,
                       &plan.candidates[size_t(plan.chosen)].algo, workspace_, kWorkspaceBytes, stream),
        "cublasLtMatmul");
}

int DownGemmLt::chosenCandidate(int64_t m) const {
  auto it = plans_.find(m);
  return it == plans_.end() ? -1 : it->second->chosen;
}

}  // namespace fuselab

#endif  // FUSELAB_HAVE_CUDA
