// The fused GeGLU MLP on LibTorch tensors: y = down(gelu_tanh(gate(x)) * up(x)),
// bias-free, bf16 or fp16 in and out, fp32 accumulation. Owns the rearranged
// weights and the workspaces and picks the kernels (FusedMlpKernels.h):
//   small:     one launch (m <= 64 tokens; up to 128 on Hopper): the whole MLP
//              in one kernel (fp32 atomic split-K reduction: y's last bits may
//              vary between runs)
//   small_deterministic: as small, with a fixed-order reduction (same bits every run)
//   large:     two launches: GeGLU GEMM (wgmma on sm_90a, else mma.sync) + cuBLASLt
//              down GEMM (three where cuBLASLt's pick splits K: it adds the
//              splits in a kernel of its own)
//   large_mma: as large, forcing the portable mma.sync kernel (what sm_80 runs)
//   liger:     four launches: cuBLAS gate, cuBLAS up, one GeGLU elementwise pass, cuBLAS down
//              (five where cuBLAS splits K for one of them)
//   auto:      small up to 64 tokens, else large (on Hopper too: the large
//              path beat the one pass in row tiles at 65-128 tokens)
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fuselab {

// The most tokens the one-launch small kernels take everywhere (their row tiles
// live in registers), and on Hopper (compute capability 9.0, sm_90a code), where
// the one-pass kernel takes more in tiles of 64 tokens.
inline constexpr int64_t kFusedMlpSmallMaxTokens = 64;
inline constexpr int64_t kFusedMlpSmallMaxTokensHopper = 128;

enum class FusedMlpPath { Auto, Small, SmallDeterministic, Large, LargeMma, Liger };

// "auto", "small", "small_deterministic", "large", "large_mma", "liger"
std::string fusedMlpPathName(FusedMlpPath path);
// Throws WorkloadError naming the choices.
FusedMlpPath parseFusedMlpPath(const std::string& name);
std::vector<std::string> fusedMlpPathNames();  // "auto" first

// Shape rules of the fused kernels, checked without a GPU. Throws WorkloadError
// (what is wrong and the allowed values) unless: tokens >= 1, dim and hidden are
// multiples of 8 in 8..65536, tokens * max(dim, hidden) < 2^31, and tokens <= 64
// for small_deterministic, <= 128 for small (over 64 the device decides).
void checkFusedMlpShape(int64_t tokens, int64_t dim, int64_t hidden, FusedMlpPath path);

class FusedMlp {
 public:
  // gate, up: [hidden, dim]; down: [dim, hidden] (nn.Linear's layout), one CUDA
  // device, one dtype (bf16 or fp16). Throws WorkloadError otherwise.
  FusedMlp(const at::Tensor& gate, const at::Tensor& up, const at::Tensor& down);
  ~FusedMlp();
  FusedMlp(const FusedMlp&) = delete;
  FusedMlp& operator=(const FusedMlp&) = delete;

  // y [.., dim] = MLP(x [.., dim]) on the current CUDA stream; x and y contiguous,
  // same dtype and device as the weights. Enqueues only: no synchronization, and
  // no allocation once the workspaces for this many tokens exist (so a forward
  // can be captured into a CUDA graph after one warm-up call).
  void forward(const at::Tensor& x, at::Tensor& y, FusedMlpPath path);
  at::Tensor forward(const at::Tensor& x, FusedMlpPath path);

  // What `path` runs for `tokens` tokens: Auto becomes Small up to 64 tokens,
  // else Large; Large becomes LargeMma where the wgmma kernel cannot run.
  FusedMlpPath resolve(int64_t tokens, FusedMlpPath path) const;
  static int kernelsPerForward(FusedMlpPath resolved);
  bool wgmmaAvailable() const { return wgmma_; }
  // Kernel names and tile plan of the resolved path, for describe().
  std::string explain(int64_t tokens, FusedMlpPath path) const;

  int64_t dim() const { return dim_; }
  // The weights as the kernels read them: wgu [2*hidden, dim] (gate/up interleaved
  // by 8) and down [dim, hidden] (for benchmarks that drive the kernels directly).
  const at::Tensor& gateUpInterleaved() const { return wgu_; }
  const at::Tensor& downWeight() const { return down_; }
  int64_t hidden() const { return hidden_; }

 private:
  struct State;  // kernel plans, bulk-copy descriptors and views kept between calls (FusedMlp.cpp)

  int64_t dim_ = 0, hidden_ = 0;
  at::ScalarType dtype_ = at::kBFloat16;
  int device_ = 0;
  bool wgmma_ = false;
  at::Tensor gate_, up_;  // as given (the liger path uses gate and up separately)
  at::Tensor down_;       // a copy, like wgu_: the fused kernels read weights only this class writes
  at::Tensor wgu_;        // [2*hidden, dim], gate/up rows interleaved by 8
  std::unique_ptr<State> state_;
};

}  // namespace fuselab
