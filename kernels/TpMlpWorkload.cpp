#include "kernels/TpMlpWorkload.h"

#include <ATen/DeviceAccelerator.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/mul.h>
#include <c10/core/InferenceMode.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include "kernels/FusedMlp.h"
#include "kernels/ForwardGraph.h"

namespace fuselab {
namespace {

constexpr int kGraphWarmupForwards = 3;

at::Device rankDevice(const WorkloadParams& p, const ProcessGroup& pg) {
  return p.device == Device::Cuda ? at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(pg.local_rank))
                                  : at::Device(at::kCPU);
}

// Why the fused kernel does not run this shard ("" when it does).
std::string fusedUnavailable(const WorkloadParams& p, int64_t shard_hidden) {
#ifndef FUSELAB_HAVE_CUDA
  (void)shard_hidden;
  return "this build has no CUDA";
#else
  if (p.device != Device::Cuda) return "the fused kernel runs on CUDA only";
  if (p.dtype == DType::FP32) return "the fused kernel runs in bf16 or fp16";
  try {
    checkFusedMlpShape(p.batch * p.seq, p.dim, shard_hidden, FusedMlpPath::Auto);
  } catch (const WorkloadError& e) {
    return std::string("the shard's shape does not fit it: ") + e.what();
  }
  return {};
#endif
}

// FUSELAB_TEST_RANK_FAULT="R:abort" | "R:hang" for rank R.
void testFault(int rank) {
  const char* v = std::getenv(kRankFaultEnv);
  if (!v) return;
  const std::string s(v);
  const auto colon = s.find(':');
  if (colon == std::string::npos || s.substr(0, colon) != std::to_string(rank)) return;
  const std::string what = s.substr(colon + 1);
  std::cerr << "fuselab test fault (" << kRankFaultEnv << "): rank " << rank << " " << what << "s now" << std::endl;
  if (what == "abort") std::abort();
  if (what == "hang")
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

class TpMlpWorkload final : public TorchWorkload {
 public:
  TpMlpWorkload(const WorkloadParams& p, ProcessGroup pg) : p_(p), pg_(std::move(pg)) {
    const int n = pg_.world_size, r = pg_.rank;
    shard_ = p.hidden / n;
    overlap_ = p.variant == "overlap";
    if (p.variant == "fused") fused_note_ = fusedUnavailable(p, shard_);
    const at::Device dev = rankDevice(p, pg_);
    const at::ScalarType type = scalarType(p.dtype);
    translateOutOfMemory("creating the tp_mlp shard", [&] {
      // The mlp workload's weights (seeds, scales), drawn whole on the CPU, then this rank's slice.
      auto full = [&](int64_t out, int64_t in, uint64_t seed) {
        return seededRandn({out, in}, seed, 1.0 / std::sqrt(double(in)), DType::FP32, Device::Cpu);
      };
      gate_ = full(p.hidden, p.dim, p.seed + 1).narrow(0, r * shard_, shard_).contiguous().to(dev, type);
      up_ = full(p.hidden, p.dim, p.seed + 2).narrow(0, r * shard_, shard_).contiguous().to(dev, type);
      down_ = full(p.dim, p.hidden, p.seed + 3).narrow(1, r * shard_, shard_).contiguous().to(dev, type);
      x_ = seededRandn({p.batch, p.seq, p.dim}, p.seed, 1.0, DType::FP32, Device::Cpu).to(dev, type);
#ifdef FUSELAB_HAVE_CUDA
      if (p.variant == "fused" && fused_note_.empty()) fused_ = std::make_unique<FusedMlp>(gate_, up_, down_);
      if (overlap_ && pg_.backend_name == "nccl") captureOverlapGraph();
#endif
    });
  }

  ~TpMlpWorkload() override {
#ifdef FUSELAB_HAVE_CUDA
    // A graph holding NCCL collectives keeps a reference on the communicator:
    // NCCL's teardown waits for it, so the graph goes first.
    graph_.reset();
#endif
    try {
      pg_.group->shutdown();
    } catch (...) {  // a peer already gone: nothing left to tell it
    }
  }

  std::string name() const override { return "tp_mlp"; }
  std::string regionLabel() const override { return "tp_mlp_fwd"; }
  std::string describe() const override {
    std::ostringstream o;
    o << "tp_mlp (" << p_.variant;
    if (p_.variant == "fused" && !fused_) o << " -> eager: " << fused_note_;
    o << "): rank " << pg_.rank << " of " << pg_.world_size << " (" << pg_.backend_name << "), x [" << p_.batch
      << ", " << p_.seq << ", " << p_.dim << "] " << dtypeName(p_.dtype) << " on " << deviceName(p_.device)
      << ", down_r(gelu_tanh(gate_r(x)) * up_r(x)) + all-reduce, gate_r/up_r [" << shard_ << ", " << p_.dim
      << "], down_r [" << p_.dim << ", " << shard_ << "], no bias";
    if (overlap_) {
      o << ", the forward in " << kTpMlpChunks << " chunks of tokens, each chunk's all-reduce beside the next chunk's "
        << "GEMMs";
      if (overlapGraphed()) o << ", replayed as one CUDA graph";
      if (!graph_note_.empty()) o << ", eager: " << graph_note_;
    }
    if (p_.delay_rank >= 0)
      o << ", rank " << p_.delay_rank << " sleeps " << p_.delay_us << " us before its "
        << (overlapGraphed() ? "forward" : "all-reduce");
    return o.str();
  }

  void forward() override {
    if (forwards_++ == 0) testFault(pg_.rank);
    translateOutOfMemory("running tp_mlp", [&] {
      c10::InferenceMode guard;
      if (fused_) {
#ifdef FUSELAB_HAVE_CUDA
        out_ = fused_->forward(x_, FusedMlpPath::Auto);
#endif
        allReduce({out_});
        return;
      }
      if (overlap_) {
        forwardOverlapped();
        return;
      }
      at::Tensor g = at::gelu(at::linear(x_, gate_), "tanh");
      at::Tensor u = at::linear(x_, up_);
      out_ = at::linear(at::mul(g, u), down_);
      allReduce({out_});
    });
  }

  void synchronize() override {
    if (p_.device == Device::Cuda) at::accelerator::synchronizeDevice(static_cast<c10::DeviceIndex>(pg_.local_rank));
  }

  double flopsPerForward() const override {
    const double t = double(p_.batch) * double(p_.seq), d = double(p_.dim), h = double(shard_);
    return 2.0 * t * 3.0 * d * h + 2.0 * t * h;
  }
  double weightBytes() const override { return 3.0 * double(p_.dim) * double(shard_) * elementBytes(p_.dtype); }
  std::string distributedInfoJson() const override { return fuselab::distributedInfoJson(pg_); }

  at::Tensor input() const override { return x_; }
  at::Tensor output() const override { return out_; }
  std::vector<at::Tensor> weights() const override { return {gate_, up_, down_}; }

 private:
  void delayIfStraggler() const {
    if (pg_.rank == p_.delay_rank && p_.delay_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(p_.delay_us));
  }

  // One all-reduce of `tensors` (summed in place), waited for: on NCCL the
  // current stream waits for it, the host does not.
  void allReduce(std::vector<at::Tensor> tensors) {
    delayIfStraggler();
    pg_.group->allreduce(tensors)->wait();
  }

  bool overlapGraphed() const {
#ifdef FUSELAB_HAVE_CUDA
    return graph_ != nullptr;
#else
    return false;
#endif
  }

  void forwardOverlapped() {
#ifdef FUSELAB_HAVE_CUDA
    if (graph_) {
      delayIfStraggler();
      graph_->replay();
      return;
    }
#endif
    forwardChunked(true);
  }

  // The whole forward chunk by chunk of tokens, each chunk's all-reduce
  // issued right after its down GEMM (on NCCL, it runs on c10d's stream while
  // the next chunk's GEMMs run on ours), all waited for at the end.
  void forwardChunked(bool delay) {
    const at::Tensor x = x_.view({-1, p_.dim});
    const int64_t tokens = x.size(0);
    at::Tensor y = at::empty({tokens, p_.dim}, x.options());
    std::vector<c10::intrusive_ptr<c10d::Work>> works;
    const int64_t chunk = (tokens + kTpMlpChunks - 1) / kTpMlpChunks;
    for (int64_t begin = 0; begin < tokens; begin += chunk) {
      const int64_t len = std::min(chunk, tokens - begin);
      const at::Tensor xc = x.narrow(0, begin, len);
      at::Tensor part = y.narrow(0, begin, len);
      at::mm_out(part, at::mul(at::gelu(at::linear(xc, gate_), "tanh"), at::linear(xc, up_)), down_.t());
      if (delay && begin == 0) delayIfStraggler();
      std::vector<at::Tensor> one{part};
      works.push_back(pg_.group->allreduce(one));
    }
    for (auto& w : works) w->wait();
    out_ = y.view({p_.batch, p_.seq, p_.dim});
  }

#ifdef FUSELAB_HAVE_CUDA
  // On NCCL the chunked forward is captured once and replayed: eager, each
  // c10d all-reduce costs 60-95 us of host time, more than a chunk's GEMMs
  // take, so the GPU would wait on the host instead of overlapping. Captured
  // collectives must be the same on every rank (one rank replaying while
  // another runs eager collectives hangs both), so the ranks agree through
  // the store and all fall back to eager if any capture failed.
  void captureOverlapGraph() {
    std::string error;
    try {
      graph_ = captureForwardGraph(
          [&] {
            c10::InferenceMode guard;
            forwardChunked(false);
          },
          kGraphWarmupForwards);
    } catch (const std::exception& e) {
      error = e.what();
    }
    graph_note_ = agreeOnGraph(error);
    if (!graph_note_.empty()) graph_.reset();
  }

  // "" when every rank captured, else which rank failed and why.
  std::string agreeOnGraph(const std::string& own_error) {
    static std::atomic<int> generation{0};  // workloads are built in the same order on every rank
    const std::string prefix = "fuselab/tp_mlp_graph/" + std::to_string(generation++) + "/";
    try {
      pg_.store->set(prefix + std::to_string(pg_.rank), own_error.empty() ? std::string("ok") : own_error);
      for (int r = 0; r < pg_.world_size; ++r) {
        const std::string v = pg_.store->get_to_str(prefix + std::to_string(r));
        if (v != "ok") return "rank " + std::to_string(r) + " could not capture a CUDA graph (" + v + ")";
      }
    } catch (const std::exception& e) {
      throw WorkloadError("rank " + std::to_string(pg_.rank) +
                          " waited for the other ranks' CUDA graph capture in vain: " + e.what());
    }
    return {};
  }
#endif

  WorkloadParams p_;
  ProcessGroup pg_;
  int64_t shard_ = 0;
  bool overlap_ = false;
  std::string fused_note_;
  std::unique_ptr<FusedMlp> fused_;
#ifdef FUSELAB_HAVE_CUDA
  std::unique_ptr<at::cuda::CUDAGraph> graph_;
#endif
  std::string graph_note_;  // why overlap runs eager on NCCL ("" when graphed or not on NCCL)
  at::Tensor gate_, up_, down_, x_, out_;
  int64_t forwards_ = 0;
};

void checkSplit(const WorkloadParams& p, int world) {
  if (p.ranks != world)
    throw WorkloadError("tp_mlp was asked for " + std::to_string(p.ranks) + " ranks but runs in a job of " +
                        std::to_string(world));
  if (p.hidden % world != 0)
    throw WorkloadError("tp_mlp splits hidden = " + std::to_string(p.hidden) + " across " + std::to_string(world) +
                        " ranks: hidden must be a multiple of the rank count");
}

double estimateBytes(const WorkloadParams& p) {
  const double t = double(p.batch) * double(p.seq), d = double(p.dim), h = double(p.hidden) / std::max(1, p.ranks);
  return (3.0 * d * h + 3.0 * t * h + 3.0 * t * d) * double(elementBytes(p.dtype));
}

std::unique_ptr<Workload> make(const WorkloadParams& p) { return makeTpMlpWorkload(p, rankEnvOfJob(p)); }

}  // namespace

std::unique_ptr<TorchWorkload> makeTpMlpWorkload(const WorkloadParams& params, const RankEnv& env) {
  checkSplit(params, env.world_size);
  WorkloadParams p = params;
  if (p.variant.empty()) p.variant = "eager";
  return std::make_unique<TpMlpWorkload>(p, joinProcessGroup(env, p.device));
}

WorkloadEntry tpMlpEntry() { return {catalogWorkload("tp_mlp"), estimateBytes, make}; }

}  // namespace fuselab
