// Work models: the FLOPs and bytes a CPU op asks of the GPU, from its name and
// its input dims and types ("Input Dims" / "Input type" args, recorded by our
// captures and by torch.profiler with record_shapes). Definitions in
// ../shared/DESIGN.md ("Work and speed of light"): a GEMM [M,K]x[K,N] is 2MNK
// FLOPs (+MN for a bias); bytes are what the op must read and write at least
// once, at the tensors' dtypes; elementwise ops count one FLOP per output
// element. An op without a model, or without the dims or types its model
// needs, has unknown work: never a guess.
//
// The models: OpWorkGemm.cpp (mm, addmm, bmm, baddbmm, matmul, linear,
// attention, fuselab's own kernels), OpWorkElementwise.cpp (elementwise and
// activation ops, copies, fills, layer_norm, rms_norm, softmax).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fuselab {

// The arithmetic a kernel runs in: picks the compute ceiling.
enum class Precision : uint8_t { Unknown, BF16, FP16, FP32, TF32, Other };
std::string_view precisionName(Precision p);  // "unknown", "bf16", "fp16", "fp32", "tf32", "other"
Precision precisionOfType(std::string_view dtype);  // "c10::BFloat16" -> BF16, "float" -> FP32, ...

// One input of an op as the trace records it.
struct OpInput {
  std::vector<int64_t> dims;  // empty for scalars and non-tensors
  std::string type;           // "c10::BFloat16", "float", "Scalar", "" ...
  bool tensor_list = false;   // a list of tensors (dims of its first element)
  int64_t numel() const;      // product of dims; 0 for an empty dims list
};

struct OpInputs {
  std::vector<OpInput> inputs;
  bool has_dims = false;   // "Input Dims" was recorded
  bool has_types = false;  // "Input type" was recorded
};

// Reads "Input Dims" and "Input type" from an op's args object (malformed or
// absent args give has_dims = false).
OpInputs parseOpInputs(std::string_view args_json);

struct Work {
  double flops = 0;
  double bytes = 0;
  Precision precision = Precision::Unknown;
};

// The part of an op's work one of its kernels does, for ops whose kernels do
// known parts (fuselab's own): the kernel whose name holds `kernel_name`, or
// with an empty name, the kernels no other part names.
struct KernelPart {
  std::string kernel_name;
  Work work;
};

struct OpWorkResult {
  std::optional<Work> work;       // nullopt: unknown
  std::string note;               // the formula used, or why the work is unknown
  std::vector<KernelPart> parts;  // empty: the kernels share `work` by duration
};

// Whether `op_name` has a model (a kernel launched inside it is attributed to
// it rather than to an enclosing op).
bool hasWorkModel(std::string_view op_name);

// The op's work, or unknown with the reason.
OpWorkResult opWork(std::string_view op_name, const OpInputs& in);

// Models, one family per file (internal; dispatched by opWork). Each returns
// nullopt when it does not know `op_name`.
std::optional<OpWorkResult> gemmWork(std::string_view op_name, const OpInputs& in);
std::optional<OpWorkResult> elementwiseWork(std::string_view op_name, const OpInputs& in);
bool isGemmModelName(std::string_view op_name);
bool isElementwiseModelName(std::string_view op_name);

// Element size of an input's dtype, nullopt when not a known tensor dtype.
std::optional<int> elementBytes(const OpInput& in);

}  // namespace fuselab
