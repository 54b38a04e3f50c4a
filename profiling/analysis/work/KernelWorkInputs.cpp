// InputCompleter (KernelWorkInputs.h): tensor lists' dtypes from kernel
// names, fused optimizers' parameters from the accumulated gradients.
#include "profiling/analysis/work/KernelWorkInputs.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <climits>
#include <iterator>
#include <utility>

#include "profiling/analysis/common/NameFlags.h"

namespace fuselab {

namespace {

bool wordAt(std::string_view s, size_t at, size_t len) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':'; };
  return (at == 0 || !ident(s[at - 1])) && (at + len == s.size() || !ident(s[at + len]));
}

}  // namespace

std::string kernelElementType(std::string_view name) {
  // Types as the kernel's name spells them and as "Input type" would.
  constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kTypes = {{
      {"c10::BFloat16", "c10::BFloat16"}, {"c10::Half", "c10::Half"}, {"float", "float"}, {"double", "double"},
      {"OpaqueType<", ""},
  }};
  size_t best = std::string_view::npos;
  std::string type;
  for (const auto& [spelled, dtype] : kTypes) {
    for (size_t at = name.find(spelled); at != std::string_view::npos; at = name.find(spelled, at + 1)) {
      if (!dtype.empty() && !wordAt(name, at, spelled.size())) continue;
      if (at >= best) break;
      if (dtype.empty()) {  // OpaqueType<N>: N bytes of no particular type
        const char n = at + spelled.size() < name.size() ? name[at + spelled.size()] : '0';
        const std::string_view by_size = n == '1' ? "unsigned char" : n == '2' ? "short" : n == '4' ? "int"
                                         : n == '8' ? "long int" : "";
        if (by_size.empty()) break;
        type = by_size;
      } else {
        type = dtype;
      }
      best = at;
      break;
    }
  }
  return type;
}

void InputCompleter::collectAccumulatedGradients() {
  collected_ = true;
  enum : uint8_t { kOther, kOptimizer, kAccumulate };
  const std::vector<uint8_t> kind = nameFlags(trace_.strings, [](std::string_view name) {
    return isFusedOptimizerName(name) ? kOptimizer : name == "torch::autograd::AccumulateGrad" ? kAccumulate : kOther;
  });
  for (const Track& t : trace_.tracks) {
    if (t.kind != TrackKind::Cpu) continue;
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (kind[t.name_id[i]] == kOptimizer) {
        optimizer_steps_.push_back(t.start_ns[i]);
      } else if (kind[t.name_id[i]] == kAccumulate) {
        OpInputs in = parseOpInputs(trace_.argsJson(t.args[i]));
        if (in.inputs.size() == 1 && !in.inputs[0].dims.empty())
          gradients_.push_back({t.start_ns[i], std::move(in.inputs[0].dims), std::move(in.inputs[0].type)});
      }
    }
  }
  std::sort(gradients_.begin(), gradients_.end(),
            [](const Accumulated& a, const Accumulated& b) { return a.start_ns < b.start_ns; });
  std::sort(optimizer_steps_.begin(), optimizer_steps_.end());
}

std::string InputCompleter::complete(EventRef op, std::string_view op_name, std::string_view kernel_name,
                                     OpInputs& in) {
  std::string filled;
  if (isFusedOptimizerName(op_name) && !in.inputs.empty() && in.inputs[0].tensor_list &&
      !in.inputs[0].list_recorded) {
    if (!collected_) collectAccumulatedGradients();
    const int64_t start = trace_.tracks[op.track].start_ns[op.index];
    auto step = std::lower_bound(optimizer_steps_.begin(), optimizer_steps_.end(), start);
    const int64_t since = step == optimizer_steps_.begin() ? INT64_MIN : *std::prev(step);
    OpInput& params = in.inputs[0];
    for (const Accumulated& g : gradients_) {
      if (g.start_ns <= since || g.start_ns >= start) continue;
      if (!params.list_dims.empty() && g.type != params.type) {
        params.list_dims.clear();  // mixed dtypes: no one dtype for the list
        break;
      }
      params.type = g.type;
      params.list_dims.push_back(g.dims);
    }
    if (!params.list_dims.empty()) {
      params.list_recorded = true;
      params.dims = params.list_dims.front();
      filled = "parameters: the " + std::to_string(params.list_dims.size()) +
               " gradients accumulated since the previous step (the list's dims were not recorded)";
    }
  }
  std::string element;  // read from the kernel's name only for an untyped list
  for (OpInput& i : in.inputs) {
    if (i.type != "TensorList") continue;
    if (element.empty()) element = kernelElementType(kernel_name);
    if (element.empty()) break;
    i.type = element;
    if (filled.empty()) filled = "the tensor list's dtype from its kernel's name: " + element;
  }
  return filled;
}

}  // namespace fuselab
