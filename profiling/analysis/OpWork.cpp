// Parsing an op's recorded inputs, dtypes and the dispatch to the work models.
#include "profiling/analysis/OpWork.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include "profiling/analysis/CollectiveEvents.h"

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

int64_t OpInput::numel() const {
  if (dims.empty()) return 0;
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::optional<int> elementBytes(const OpInput& in) { return dtypeBytes(in.type); }

namespace {

// [d0, d1, ...] of non-negative integers; false for anything else.
bool readShape(const nlohmann::json& j, std::vector<int64_t>& out) {
  if (!j.is_array()) return false;
  for (const auto& d : j) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0) return false;
    out.push_back(d.get<int64_t>());
  }
  return true;
}

}  // namespace

OpInputs parseOpInputs(std::string_view args_json) {
  OpInputs out;
  if (args_json.empty()) return out;
  const auto args = nlohmann::json::parse(args_json, nullptr, /*allow_exceptions=*/false);
  if (!args.is_object()) return out;
  const auto dims = args.find("Input Dims");
  if (dims == args.end() || !dims->is_array()) return out;
  for (const auto& d : *dims) {
    OpInput in;
    if (d.is_array() && !d.empty() && d[0].is_array()) {  // a tensor list: keep its first tensor's dims
      in.tensor_list = true;
      if (!readShape(d[0], in.dims)) return out;
    } else if (!readShape(d, in.dims)) {
      return out;
    }
    out.inputs.push_back(std::move(in));
  }
  out.has_dims = true;
  const auto types = args.find("Input type");
  if (types != args.end() && types->is_array() && types->size() == out.inputs.size()) {
    for (size_t i = 0; i < types->size(); ++i)
      if ((*types)[i].is_string()) out.inputs[i].type = (*types)[i].get<std::string>();
    out.has_types = true;
  }
  return out;
}

bool hasWorkModel(std::string_view op_name) {
  return isGemmModelName(op_name) || isElementwiseModelName(op_name);
}

OpWorkResult opWork(std::string_view op_name, const OpInputs& in) {
  if (!hasWorkModel(op_name)) return {std::nullopt, "no work model for " + std::string(op_name)};
  if (!in.has_dims) return {std::nullopt, std::string(op_name) + " was recorded without input dims (record_shapes)"};
  if (!in.has_types) return {std::nullopt, std::string(op_name) + " was recorded without input types"};
  if (auto r = gemmWork(op_name, in)) return *r;
  if (auto r = elementwiseWork(op_name, in)) return *r;
  return {std::nullopt, "no work model for " + std::string(op_name)};
}

}  // namespace fuselab
