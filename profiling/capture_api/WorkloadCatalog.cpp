#include "profiling/capture_api/WorkloadCatalog.h"

namespace fuselab {
namespace {

// On the CPU: fp32 (bf16 GEMMs have no fast path on most CPUs) and the sizes
// given, the rest as on the GPU. Chosen so that the default capture (3
// warm-up forwards, 6 profiler warm-up, 3 steps and 3 unprofiled blocks)
// takes about a second on a 2-core box (docs/capture.md).
WorkloadParams onCpu(WorkloadParams p, int64_t batch, int64_t seq) {
  p.device = Device::Cpu;
  p.dtype = DType::FP32;
  p.batch = batch;
  p.seq = seq;
  return p;
}

WorkloadInfo matmulAdd() {
  WorkloadInfo info;
  info.name = "matmul_add";
  info.title = "add(matmul(x, w), b)";
  info.description =
      "A GEMM followed by a separate elementwise add, all operands [dim, dim]: small sizes are "
      "overhead-bound, large ones compute-bound. Variant 'addmm': one aten::addmm(b, x, w), as torch.compile "
      "rewrites it (b is copied into the output, the GEMM accumulates onto it).";
  info.variants = {"eager", "addmm"};
  info.defaults.workload = "matmul_add";
  info.defaults.dim = 64;
  info.cpu_defaults = onCpu(info.defaults, info.defaults.batch, info.defaults.seq);
  return info;
}

WorkloadInfo linear() {
  WorkloadInfo info;
  info.name = "linear";
  info.title = "nn.Linear";
  info.description =
      "y = x W^T + b with torch::nn::Linear: aten::linear -> aten::t (a view, no kernel) -> aten::addmm, "
      "the bias fused into the GEMM epilogue (dim = in features, out = out features).";
  info.variants = {"eager"};
  info.defaults.workload = "linear";
  info.defaults.batch = 1024;
  info.defaults.dim = 32;
  info.defaults.out = 64;
  info.cpu_defaults = onCpu(info.defaults, info.defaults.batch, info.defaults.seq);
  return info;
}

WorkloadInfo mlp() {
  WorkloadInfo info;
  info.name = "mlp";
  info.title = "Stacked GeGLU MLP";
  info.description =
      "down(gelu_tanh(gate(x)) * up(x)) with three bias-free nn.Linear layers on x [batch, seq, dim]: 3 GEMMs + "
      "GELU + mul per forward. Variant 'stacked': Linear -> GELU -> Linear -> GELU -> Linear.";
  info.variants = {"geglu", "stacked"};
  info.defaults.workload = "mlp";
  info.defaults.batch = 64;
  info.defaults.seq = 128;
  info.defaults.dim = 768;
  info.defaults.hidden = 3072;
  info.cpu_defaults = onCpu(info.defaults, 1, 128);
  return info;
}

WorkloadInfo fusedMlp() {
  WorkloadInfo info;
  info.name = "fused_mlp";
  info.title = "Fused GeGLU MLP (own CUDA kernels)";
  info.description =
      "The mlp workload's down(gelu_tanh(gate(x)) * up(x)) on fuselab's own kernels. auto: small when "
      "batch * seq <= 64, else large. small: the whole MLP in 1 kernel (fp32 atomic split-K sum: the last bits may "
      "vary between runs; up to 128 tokens on Hopper GPUs where the shape fits). "
      "small_deterministic: as small, summed in a fixed order (the same bits every run; up to 64). large: gate+up GEMM with GeGLU in its "
      "epilogue, then the down GEMM (2 kernels, 3 where cuBLASLt splits K). large_mma: large on the portable mma.sync kernel. liger: "
      "cuBLAS GEMMs around one GeGLU elementwise kernel (4 kernels), like Liger and torch.compile.";
  // kernels/FusedMlp.h names the same paths (fusedMlpPathNames(); a kernels test checks they agree).
  info.variants = {"auto", "small", "small_deterministic", "large", "large_mma", "liger"};
  info.defaults.workload = "fused_mlp";
  info.defaults.batch = 64;
  info.defaults.seq = 128;
  info.defaults.dim = 768;
  info.defaults.hidden = 3072;
  info.defaults.dtype = DType::BF16;
  info.cuda_only = true;
  info.cpu_defaults = info.defaults;  // never used: CUDA only
  return info;
}

WorkloadInfo tpMlp() {
  WorkloadInfo info;
  info.name = "tp_mlp";
  info.title = "GeGLU MLP split across ranks (tensor parallel)";
  info.description =
      "The mlp workload Megatron-style on --ranks processes (c10d: NCCL on cuda, one GPU per rank; Gloo on the "
      "cpu): gate and up split by columns, down by rows, one all-reduce of the output per forward. eager: LibTorch "
      "ops per shard. fused: our fused kernel per shard (CUDA, bf16/fp16; else eager, said in the trace name). "
      "overlap: the forward in 2 chunks of tokens, each chunk's all-reduce running while the next chunk's GEMMs "
      "compute; on NCCL replayed as one CUDA graph, so no host time separates the chunks.";
  info.variants = {"eager", "fused", "overlap"};
  info.defaults.workload = "tp_mlp";
  info.defaults.batch = 64;
  info.defaults.seq = 128;
  info.defaults.dim = 768;
  info.defaults.hidden = 3072;
  info.defaults.ranks = 2;
  info.cpu_defaults = onCpu(info.defaults, 1, 128);
  info.distributed = true;
  return info;
}

WorkloadInfo allReduce() {
  WorkloadInfo info;
  info.name = "allreduce";
  info.title = "One all-reduce per step";
  info.description =
      "One all-reduce (sum) of a [batch, seq, dim] tensor per forward on --ranks processes (c10d: NCCL on cuda, one "
      "GPU per rank; Gloo on the cpu): the message nccl-tests times. Swept over sizes (--dim elements per token), "
      "it shows the bus bandwidth at each size and, from NCCL's profiler plugin, the algorithm and protocol NCCL chose.";
  info.variants = {"eager"};
  info.defaults.workload = "allreduce";
  info.defaults.batch = 1024;
  info.defaults.seq = 1;
  info.defaults.dim = 1024;
  info.defaults.ranks = 2;
  info.cpu_defaults = onCpu(info.defaults, 64, 1);
  info.distributed = true;
  return info;
}

WorkloadInfo trainStep() {
  WorkloadInfo info;
  info.name = "train_step";
  info.title = "Transformer training step";
  info.description =
      "One training step of a one-block transformer language model on tokens [batch, seq]: embedding, layer norm, "
      "causal scaled-dot-product attention (heads of 64), GELU MLP (hidden), dropout and cross-entropy over a "
      "vocabulary of out, under autocast to the dtype; backward; a fused AdamW update of the fp32 parameters. "
      "The kernels a real step spends its time in, beside the forward's GEMMs.";
  info.variants = {"eager"};
  info.defaults.workload = "train_step";
  info.defaults.batch = 8;
  info.defaults.seq = 512;
  info.defaults.dim = 768;
  info.defaults.hidden = 3072;
  info.defaults.out = 8192;
  info.cpu_defaults = onCpu(info.defaults, 1, 128);
  return info;
}

}  // namespace

const std::vector<WorkloadInfo>& workloadCatalog() {
  static const std::vector<WorkloadInfo> catalog = {matmulAdd(), linear(), mlp(), fusedMlp(), tpMlp(), trainStep(), allReduce()};
  return catalog;
}

const WorkloadInfo& catalogWorkload(const std::string& name) {
  std::string choices;
  for (const WorkloadInfo& info : workloadCatalog()) {
    if (info.name == name) return info;
    choices += (choices.empty() ? "" : ", ") + info.name;
  }
  throw WorkloadError("unknown workload '" + name + "' (choose " + choices + ")");
}

std::string catalogVariant(const WorkloadInfo& info, const std::string& requested) {
  if (requested.empty()) return info.variants.empty() ? std::string() : info.variants.front();
  for (const auto& v : info.variants)
    if (v == requested) return v;
  std::string choices;
  for (const auto& v : info.variants) choices += (choices.empty() ? "" : ", ") + v;
  throw WorkloadError("unknown variant '" + requested + "' for " + info.name + " (choose " + choices + ")");
}

}  // namespace fuselab
