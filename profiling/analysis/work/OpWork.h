// Work models: the FLOPs and bytes a CPU op asks of the GPU, from its name and
// its input dims and types ("Input Dims" / "Input type" args, recorded by our
// captures and by torch.profiler with record_shapes). Definitions in
// ../shared/DESIGN.md ("Work and speed of light"): a GEMM [M,K]x[K,N] is 2MNK
// FLOPs (+MN for a bias); bytes are what the op must read and write at least
// once, at the tensors' dtypes; elementwise ops count one FLOP per output
// element. An op without a model, or without the dims or types its model
// needs, has unknown work: never a guess.
//
// The models, one family per file: OpWorkGemm.cpp (mm, addmm, bmm, baddbmm,
// matmul, linear, fuselab's own kernels), OpWorkAttention.cpp (every SDPA
// backend, forward and backward), OpWorkElementwise.cpp (elementwise and
// activation ops and their backwards, dropout, copies, fills, norms and
// softmax and their backwards), OpWorkReduction.cpp (sum, mean, norms, ...,
// nll_loss), OpWorkIndexing.cpp (embedding and its backward, gather,
// index_select, cat), OpWorkOptimizer.cpp (fused optimizers, _foreach_*),
// OpWorkTriton.cpp (Inductor's Triton kernels).
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
  bool tensor_list = false;   // a list of tensors (dims: its first element's, when recorded)
  // Its elements' dims were recorded, in list_dims (torch.profiler leaves
  // those of a list of more than 30 tensors out).
  bool list_recorded = false;
  std::vector<std::vector<int64_t>> list_dims;
  std::string concrete;       // its "Concrete Inputs" entry (a scalar's value, "[0]"), "" when none
  std::vector<int64_t> strides;  // "Input Strides" of a tensor, when recorded
  double numel() const;          // product of dims; 0 for an empty dims list
  // The distinct elements a read touches: a broadcast dim (stride 0, as an
  // expanded index has) counts once. numel() without recorded strides.
  double distinctElements() const;
};

struct OpInputs {
  std::vector<OpInput> inputs;
  bool has_dims = false;   // "Input Dims" was recorded
  bool has_types = false;  // "Input type" was recorded
  // Input i's concrete value as an integer / integer list / flag, nullopt
  // when not recorded or not of that form ("1", "[0, 1]", "True").
  std::optional<int64_t> concreteInt(size_t i) const;
  std::optional<std::vector<int64_t>> concreteInts(size_t i) const;
  std::optional<bool> concreteFlag(size_t i) const;
};

// Reads "Input Dims", "Input type", "Input Strides" and "Concrete Inputs" from an op's args object (malformed or
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
std::optional<OpWorkResult> attentionWork(std::string_view op_name, const OpInputs& in);
std::optional<OpWorkResult> elementwiseWork(std::string_view op_name, const OpInputs& in);
std::optional<OpWorkResult> reductionWork(std::string_view op_name, const OpInputs& in);
std::optional<OpWorkResult> indexingWork(std::string_view op_name, const OpInputs& in);
std::optional<OpWorkResult> optimizerWork(std::string_view op_name, const OpInputs& in);
std::optional<OpWorkResult> tritonWork(std::string_view op_name, const OpInputs& in);
bool isGemmModelName(std::string_view op_name);
bool isAttentionModelName(std::string_view op_name);
bool isElementwiseModelName(std::string_view op_name);
bool isReductionModelName(std::string_view op_name);
bool isIndexingModelName(std::string_view op_name);
bool isOptimizerModelName(std::string_view op_name);
bool isTritonModelName(std::string_view op_name);

// Elementwise ops, copies and fills: nested in another modelled op, they are
// its helpers (zeroing an accumulator, a layout copy, a mask), whose work the
// op's own model does not count.
bool isMemoryHelperName(std::string_view op_name);

// _fused_adamw_, _fused_adam_, _fused_sgd_: their parameter list is input 0.
bool isFusedOptimizerName(std::string_view op_name);

// The tensor input of the widest floating dtype (bf16, fp16, fp32; the first
// of equal ones): the dtype an op's result is promoted to. nullptr when none.
const OpInput* widestFloatInput(const OpInputs& in);

// Element size of an input's dtype, nullopt when not a known tensor dtype.
std::optional<int> elementBytes(const OpInput& in);

}  // namespace fuselab
