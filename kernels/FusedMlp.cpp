#include "kernels/FusedMlp.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/stack.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include "profiling/capture_api/Workload.h"

#ifdef FUSELAB_HAVE_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include "kernels/DownGemmLt.h"
#include "kernels/FusedMlpKernels.h"
#include "kernels/LaunchReplay.h"
#include "kernels/OpAnnotation.h"
#endif

namespace fuselab {

namespace {
constexpr int64_t kMaxSide = 65536;
constexpr int64_t kMaxElements = (int64_t(1) << 31) - 1;
}  // namespace

std::vector<std::string> fusedMlpPathNames() {
  return {"auto", "small", "small_deterministic", "large", "large_mma", "liger"};
}

std::string fusedMlpPathName(FusedMlpPath path) {
  switch (path) {
    case FusedMlpPath::Auto: return "auto";
    case FusedMlpPath::Small: return "small";
    case FusedMlpPath::SmallDeterministic: return "small_deterministic";
    case FusedMlpPath::Large: return "large";
    case FusedMlpPath::LargeMma: return "large_mma";
    case FusedMlpPath::Liger: return "liger";
  }
  return "?";
}

FusedMlpPath parseFusedMlpPath(const std::string& name) {
  if (name.empty() || name == "auto") return FusedMlpPath::Auto;
  if (name == "small") return FusedMlpPath::Small;
  if (name == "small_deterministic") return FusedMlpPath::SmallDeterministic;
  if (name == "large") return FusedMlpPath::Large;
  if (name == "large_mma") return FusedMlpPath::LargeMma;
  if (name == "liger") return FusedMlpPath::Liger;
  throw WorkloadError("unknown fused_mlp variant '" + name +
                      "' (choose auto, small, small_deterministic, large, large_mma or liger)");
}

void checkFusedMlpShape(int64_t tokens, int64_t dim, int64_t hidden, FusedMlpPath path) {
  if (tokens < 1) {
    throw WorkloadError("fused_mlp needs at least 1 token (batch * seq = " + std::to_string(tokens) + ")");
  }
  for (auto [name, v] : {std::pair<const char*, int64_t>{"dim", dim}, {"hidden", hidden}}) {
    if (v < 8 || v > kMaxSide || v % 8 != 0) {
      throw WorkloadError(std::string(name) + " = " + std::to_string(v) +
                          " is not supported by fused_mlp: it must be a multiple of 8 from 8 to " +
                          std::to_string(kMaxSide) + " (16-byte rows for the vector and tensor-copy loads)");
    }
  }
  if (tokens > kMaxElements / std::max(dim, hidden)) {
    throw WorkloadError("fused_mlp: tokens * max(dim, hidden) = " + std::to_string(tokens) + " * " +
                        std::to_string(std::max(dim, hidden)) + " is over 2^31 - 1 elements; use fewer tokens");
  }
  const int64_t small_max = path == FusedMlpPath::Small ? kFusedMlpSmallMaxTokensHopper : kFusedMlpSmallMaxTokens;
  if ((path == FusedMlpPath::Small || path == FusedMlpPath::SmallDeterministic) && tokens > small_max) {
    throw WorkloadError("fused_mlp variant " + fusedMlpPathName(path) +
                        " runs the one-launch kernel, which takes at most " + std::to_string(small_max) +
                        " tokens (batch * seq = " + std::to_string(tokens) + "): use auto or large");
  }
}

int FusedMlp::kernelsPerForward(FusedMlpPath resolved) {
  switch (resolved) {
    case FusedMlpPath::Small:
    case FusedMlpPath::SmallDeterministic: return 1;
    case FusedMlpPath::Large:
    case FusedMlpPath::LargeMma: return 2;
    case FusedMlpPath::Liger: return 4;
    case FusedMlpPath::Auto: break;
  }
  throw std::logic_error("kernelsPerForward needs a resolved path");
}

FusedMlpPath FusedMlp::resolve(int64_t tokens, FusedMlpPath path) const {
  // Past 64 tokens the large path beat the Hopper one pass at every count up
  // to 128 but one (H200, us per forward, one pass / large: 65 14.2 / 13.0,
  // 96 13.3 / 12.6, 112 12.9 / 12.3-12.5, 128 12.8-12.9 / 11.8-11.9; 72
  // 13.7 / 13.3-14.9), once the down GEMM's split-K variants were timed.
  if (path == FusedMlpPath::Auto) path = tokens <= kFusedMlpSmallMaxTokens ? FusedMlpPath::Small : FusedMlpPath::Large;
  if (path == FusedMlpPath::Large && !wgmma_) path = FusedMlpPath::LargeMma;
  return path;
}

#ifdef FUSELAB_HAVE_CUDA

namespace fm = fusedmlp;
static_assert(fm::kSmallMaxTokens == kFusedMlpSmallMaxTokens);
static_assert(fm::kOnePassWgmmaMaxTokens == kFusedMlpSmallMaxTokensHopper);

namespace {
fm::ElemType elemType(at::ScalarType t) { return t == at::kBFloat16 ? fm::ElemType::BF16 : fm::ElemType::FP16; }

// A byte buffer grown on demand, and a [rows, cols] view of it kept while the
// shape stays the same (building views costs host time on every forward).
struct Scratch {
  at::Tensor bytes, view;

  const at::Tensor& get(int64_t rows, int64_t cols, at::ScalarType dtype, int device) {
    if (view.defined() && view.size(0) == rows && view.size(1) == cols) return view;
    const int64_t need = rows * cols * 2;
    if (!bytes.defined() || bytes.numel() < need) {
      bytes = at::empty({need}, at::TensorOptions().dtype(at::kByte).device(at::kCUDA, device));
    }
    view = bytes.narrow(0, 0, need).view(dtype).view({rows, cols});
    return view;
  }
};

// A [tokens, dim] view of a caller's tensor, kept while it is the same tensor.
struct View2d {
  at::Tensor source, view;

  const at::Tensor& of(const at::Tensor& t, int64_t tokens, int64_t dim) {
    if (!view.defined() || !source.is_same(t) || view.data_ptr() != t.data_ptr() || view.size(0) != tokens) {
      source = t;
      view = t.view({tokens, dim});
    }
    return view;
  }
};
}  // namespace

// A small-kernel plan and its workspace, zero-filled once (every launch leaves it
// ready for the next). One each: plans for other token counts, or the other
// small kernel, lay their workspaces out differently.
struct SmallKernel {
  fm::SmallMlpPlan plan;
  at::Tensor workspace;
};

struct FusedMlp::State {
  std::map<std::pair<int64_t, bool>, SmallKernel> small;  // by token count and determinism
  bool weights_just_written = true;  // by the constructor's copies: no early start for the next launch
  Scratch act, gate_out, up_out;
  View2d x2, y2;
  std::unique_ptr<DownGemmLt> down_gemm;  // the large path's down projection, made on its first use
  LaunchReplay large_replay;              // the large path's two launches, replayed as one graph
  fm::GegluGemmMaps maps{};
  const void* maps_x = nullptr;  // what the descriptors in `maps` point at
  const void* maps_act = nullptr;
  int64_t maps_tokens = -1;

  SmallKernel& smallKernel(int64_t tokens, int64_t dim, int64_t hidden, fm::ElemType type, int device,
                           bool deterministic) {
    auto it = small.find({tokens, deterministic});
    if (it == small.end()) {
      fm::SmallMlpTuning tuning;
      // The two-phase kernel's default reduction adds its partial sums in a fixed order.
      if (deterministic) tuning.kernel = fm::SmallMlpKernel::TwoPhase;
      try {
        it = small.emplace(std::pair{tokens, deterministic},
                           SmallKernel{fm::planSmallMlp(tokens, dim, hidden, type, device, tuning), {}})
                 .first;
      } catch (const std::invalid_argument& e) {
        throw WorkloadError(std::string("fused_mlp small path: ") + e.what());
      }
    }
    return it->second;
  }
};

FusedMlp::FusedMlp(const at::Tensor& gate, const at::Tensor& up, const at::Tensor& down)
    : state_(std::make_unique<State>()) {
  if (!gate.defined() || !up.defined() || !down.defined()) throw WorkloadError("fused_mlp: a weight is missing");
  if (!gate.is_cuda() || up.device() != gate.device() || down.device() != gate.device()) {
    throw WorkloadError("fused_mlp: the weights must all be on one CUDA device");
  }
  dtype_ = gate.scalar_type();
  if ((dtype_ != at::kBFloat16 && dtype_ != at::kHalf) || up.scalar_type() != dtype_ ||
      down.scalar_type() != dtype_) {
    throw WorkloadError("fused_mlp: the weights must all be bf16 or all fp16");
  }
  if (gate.dim() != 2 || up.sizes() != gate.sizes() || down.dim() != 2 || down.size(0) != gate.size(1) ||
      down.size(1) != gate.size(0)) {
    throw WorkloadError("fused_mlp: expected gate and up [hidden, dim] and down [dim, hidden]");
  }
  hidden_ = gate.size(0);
  dim_ = gate.size(1);
  checkFusedMlpShape(1, dim_, hidden_, FusedMlpPath::Auto);
  device_ = gate.get_device();
  c10::cuda::CUDAGuard guard(device_);
  gate_ = gate.contiguous();
  up_ = up.contiguous();
  // A copy, like wgu_: the small kernel reads its weights before the kernel
  // launched just before it has finished (SmallMlpPlan::pdl), so no kernel but
  // this constructor's may write them.
  down_ = down.contiguous().clone();
  wgu_ = at::stack({gate_.view({hidden_ / 8, 8, dim_}), up_.view({hidden_ / 8, 8, dim_})}, 1)
             .reshape({2 * hidden_, dim_})
             .contiguous();
  wgmma_ = fm::gegluGemmWgmmaAvailable(device_);
}

FusedMlp::~FusedMlp() = default;

void FusedMlp::forward(const at::Tensor& x, at::Tensor& y, FusedMlpPath path) {
  if (!x.defined() || !x.is_cuda() || x.get_device() != device_ || x.scalar_type() != dtype_ || !x.is_contiguous() ||
      x.dim() < 1 || x.size(-1) != dim_) {
    throw WorkloadError("fused_mlp: x must be a contiguous [.., " + std::to_string(dim_) +
                        "] tensor of the weights' dtype on their device");
  }
  if (!y.defined() || y.sizes() != x.sizes() || y.scalar_type() != dtype_ || y.device() != x.device() ||
      !y.is_contiguous()) {
    throw WorkloadError("fused_mlp: y must be a contiguous tensor shaped like x, of the same dtype and device");
  }
  const int64_t tokens = x.numel() / dim_;
  checkFusedMlpShape(tokens, dim_, hidden_, path);
  c10::cuda::CUDAGuard guard(device_);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream(device_).stream();
  const fm::ElemType type = elemType(dtype_);
  State& st = *state_;

  const FusedMlpPath resolved = resolve(tokens, path);
  switch (resolved) {
    case FusedMlpPath::Small:
    case FusedMlpPath::SmallDeterministic: {
      SmallKernel& k =
          st.smallKernel(tokens, dim_, hidden_, type, device_, resolved == FusedMlpPath::SmallDeterministic);
      const fm::SmallMlpPlan& plan = k.plan;
      if (!k.workspace.defined()) {
        k.workspace = at::zeros({int64_t(plan.workspace_bytes)},
                                at::TensorOptions().dtype(at::kByte).device(at::kCUDA, device_));
      }
      fm::SmallMlpPlan after_copies;
      const fm::SmallMlpPlan* launch = &plan;
      if (st.weights_just_written) {
        after_copies = plan;
        after_copies.pdl = false;
        launch = &after_copies;
        st.weights_just_written = false;
      }
      at::RecordFunction op(at::RecordScope::FUNCTION);
      recordOp(op, "fuselab::fused_mlp", x, wgu_, down_);
      fm::launchSmallMlp(*launch, type, x.data_ptr(), wgu_.data_ptr(), down_.data_ptr(), y.data_ptr(),
                         k.workspace.data_ptr(), stream);
      break;
    }
    case FusedMlpPath::Large:
    case FusedMlpPath::LargeMma: {
      const at::Tensor& act = st.act.get(tokens, hidden_, dtype_, device_);
      if (resolved == FusedMlpPath::Large &&
          (st.maps_x != x.data_ptr() || st.maps_act != act.data_ptr() || st.maps_tokens != tokens)) {
        fm::encodeGegluGemmMaps(st.maps, type, x.data_ptr(), wgu_.data_ptr(), act.data_ptr(), tokens, dim_, hidden_);
        st.maps_x = x.data_ptr();
        st.maps_act = act.data_ptr();
        st.maps_tokens = tokens;
      }
      if (!st.down_gemm) st.down_gemm = std::make_unique<DownGemmLt>(dim_, hidden_, dtype_ == at::kBFloat16, device_);
      // One op around both kernels (or the graph that replays them): the whole
      // MLP's work, which the analysis splits between the two by duration.
      at::RecordFunction op(at::RecordScope::FUNCTION);
      recordOp(op, "fuselab::fused_mlp", x, wgu_, down_);
      auto launches = [&](cudaStream_t s) {
        if (resolved == FusedMlpPath::Large) {
          fm::launchGegluGemmWgmma(st.maps, type, tokens, dim_, hidden_, s);
        } else {
          fm::launchGegluGemmMma(type, x.data_ptr(), wgu_.data_ptr(), act.data_ptr(), tokens, dim_, hidden_, s);
        }
        st.down_gemm->run(act.data_ptr(), down_.data_ptr(), y.data_ptr(), tokens, s);
      };
      // The first forward at a token count times the down GEMM's algorithms
      // (it synchronizes) and runs launch by launch; later ones replay.
      if (st.down_gemm->chosenCandidate(tokens) < 0) {
        launches(stream);
      } else {
        st.large_replay.run({x.data_ptr(), y.data_ptr(), tokens, int(resolved)}, stream, launches);
      }
      break;
    }
    case FusedMlpPath::Liger: {
      at::Tensor g = st.gate_out.get(tokens, hidden_, dtype_, device_);
      at::Tensor u = st.up_out.get(tokens, hidden_, dtype_, device_);
      const at::Tensor& act = st.act.get(tokens, hidden_, dtype_, device_);
      const at::Tensor& x2 = st.x2.of(x, tokens, dim_);
      at::mm_out(g, x2, gate_.t());
      at::mm_out(u, x2, up_.t());
      {
        at::RecordFunction op(at::RecordScope::FUNCTION);
        recordOp(op, "fuselab::geglu", g, u);
        fm::launchGegluElementwise(type, g.data_ptr(), u.data_ptr(), act.data_ptr(), tokens * hidden_, stream);
      }
      at::Tensor y2 = st.y2.of(y, tokens, dim_);
      at::mm_out(y2, act, down_.t());
      break;
    }
    case FusedMlpPath::Auto: throw std::logic_error("unresolved fused_mlp path");
  }
}

std::string FusedMlp::explain(int64_t tokens, FusedMlpPath path) const {
  std::ostringstream o;
  const FusedMlpPath r = resolve(tokens, path);
  const int n = kernelsPerForward(r);
  o << n << (n == 1 ? " kernel" : " kernels") << " per forward";
  if (r == FusedMlpPath::Large || r == FusedMlpPath::LargeMma) {
    o << " (3 where cuBLASLt's pick splits K and adds the splits in a kernel of its own)";
  } else if (r == FusedMlpPath::Liger) {
    o << " (5 where cuBLAS splits K for one of its GEMMs)";
  }
  o << ": ";
  switch (r) {
    case FusedMlpPath::Small:
    case FusedMlpPath::SmallDeterministic: {
      c10::cuda::CUDAGuard guard(device_);
      fm::SmallMlpPlan plan;
      try {
        plan = state_->smallKernel(tokens, dim_, hidden_, elemType(dtype_), device_,
                                   r == FusedMlpPath::SmallDeterministic)
                   .plan;
      } catch (const WorkloadError& e) {
        o << "not available here: " << e.what();
        break;
      }
      if (plan.one_pass) {
        o << "one kernel, " << plan.grid << " blocks of " << plan.a_groups * 8 << " hidden units";
        if (plan.row_tiles > 1) o << " x 64 tokens (" << plan.row_tiles << " row tiles)";
        o << " each (gate+up GEMM, GeGLU, down GEMM; the partial outputs added with fp32 atomics, "
             "in no fixed order";
        if (plan.l2_group > 1) {
          o << "; groups of " << plan.l2_group << " share act through L2 and split the output columns";
          if (plan.x_multicast) o << ", in clusters of " << plan.cluster << " that load x together";
          if (plan.wgmma) o << "; wgmma (sm_90a), the gate+up GEMM chunk by chunk as its operands land";
        } else if (plan.cluster > 1) {
          o << "; clusters of " << plan.cluster << " share act and split the output columns";
        }
        o << "; the last " << (plan.converters > 1 ? std::to_string(plan.converters) + " blocks" : std::string("block"))
          << " to finish convert the sum into y)";
      } else {
        o << "one kernel in two phases with a grid barrier (gate+up GEMM and GeGLU over " << plan.a_tiles
          << " tiles; down GEMM over " << plan.b_col_tiles << " column tiles x " << plan.b_slices
          << " hidden slices, added up in a fixed order)";
      }
      if (plan.pdl) o << "; it starts loading its weights while the previous kernel finishes";
      break;
    }
    case FusedMlpPath::Large:
      o << "GeGLU GEMM (wgmma, sm_90a, persistent, " << fm::gegluTileName(fm::gegluTileFor(tokens))
        << " tiles) + cuBLASLt down GEMM (algorithm and split of K timed once per token count); from the second forward on, "
           "replayed as one CUDA graph";
      break;
    case FusedMlpPath::LargeMma:
      o << "GeGLU GEMM (mma.sync, 128x128 tiles) + cuBLASLt down GEMM (algorithm timed once per token count); "
           "from the second forward on, replayed as one CUDA graph";
      break;
    case FusedMlpPath::Liger:
      o << "cuBLAS gate, cuBLAS up, GeGLU elementwise, cuBLAS down";
      break;
    case FusedMlpPath::Auto: break;
  }
  return o.str();
}

#else  // no CUDA in this build

struct FusedMlp::State {};

FusedMlp::FusedMlp(const at::Tensor&, const at::Tensor&, const at::Tensor&) {
  throw WorkloadError("fused_mlp needs CUDA, and this fuselab build has none");
}
FusedMlp::~FusedMlp() = default;
void FusedMlp::forward(const at::Tensor&, at::Tensor&, FusedMlpPath) {
  throw WorkloadError("fused_mlp needs CUDA, and this fuselab build has none");
}
std::string FusedMlp::explain(int64_t, FusedMlpPath) const { return "not available (no CUDA in this build)"; }

#endif

at::Tensor FusedMlp::forward(const at::Tensor& x, FusedMlpPath path) {
  at::Tensor y = at::empty_like(x);
  forward(x, y, path);
  return y;
}

}  // namespace fuselab
