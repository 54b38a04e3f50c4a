// Parsing an op's recorded inputs, dtypes and the dispatch to the work models.
#include "profiling/analysis/work/OpWork.h"

#include <cctype>

#include "profiling/analysis/collectives/CollectiveEvents.h"

namespace fuselab {

std::string_view precisionName(Precision p) {
  switch (p) {
    case Precision::BF16: return "bf16";
    case Precision::FP16: return "fp16";
    case Precision::FP32: return "fp32";
    case Precision::TF32: return "tf32";
    case Precision::Other: return "other";
    case Precision::Unknown: break;
  }
  return "unknown";
}

Precision precisionOfType(std::string_view dtype) {
  std::string s;
  for (char c : dtype) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s.starts_with("c10::")) s = s.substr(5);
  if (s.starts_with("torch.")) s = s.substr(6);
  if (s == "bfloat16") return Precision::BF16;
  if (s == "half" || s == "float16") return Precision::FP16;
  if (s == "float" || s == "float32") return Precision::FP32;
  return dtypeBytes(dtype) ? Precision::Other : Precision::Unknown;
}

double OpInput::numel() const {
  if (dims.empty()) return 0;
  double n = 1;
  for (int64_t d : dims) n *= double(d);
  return n;
}

double OpInput::distinctElements() const {
  if (dims.empty()) return 0;
  double n = 1;
  for (size_t k = 0; k < dims.size(); ++k)
    if (strides.size() != dims.size() || strides[k] != 0) n *= double(dims[k]);
  return n;
}

std::optional<int> elementBytes(const OpInput& in) { return dtypeBytes(in.type); }

const OpInput* widestFloatInput(const OpInputs& in) {
  const OpInput* widest = nullptr;
  for (const OpInput& i : in.inputs) {
    if (i.dims.empty()) continue;
    const Precision p = precisionOfType(i.type);
    if (p == Precision::BF16 || p == Precision::FP16 || p == Precision::FP32)
      if (!widest || elementBytes(i).value_or(0) > elementBytes(*widest).value_or(0)) widest = &i;
  }
  return widest;
}

namespace {

struct Family {
  bool (*has)(std::string_view);
  std::optional<OpWorkResult> (*work)(std::string_view, const OpInputs&);
};

constexpr Family kFamilies[] = {
    {isGemmModelName, gemmWork},           {isAttentionModelName, attentionWork},
    {isElementwiseModelName, elementwiseWork}, {isReductionModelName, reductionWork},
    {isIndexingModelName, indexingWork},   {isOptimizerModelName, optimizerWork},
    {isTritonModelName, tritonWork},
};

}  // namespace

bool hasWorkModel(std::string_view op_name) {
  for (const Family& f : kFamilies)
    if (f.has(op_name)) return true;
  return false;
}

OpWorkResult opWork(std::string_view op_name, const OpInputs& in) {
  if (!hasWorkModel(op_name)) return {std::nullopt, "no work model for " + std::string(op_name)};
  if (!in.has_dims) return {std::nullopt, std::string(op_name) + " was recorded without input dims (record_shapes)"};
  if (!in.has_types) return {std::nullopt, std::string(op_name) + " was recorded without input types"};
  for (const Family& f : kFamilies)
    if (f.has(op_name))
      if (auto r = f.work(op_name, in)) return *r;
  return {std::nullopt, "no work model for " + std::string(op_name)};
}

}  // namespace fuselab
