// Work models of elementwise and activation ops, copies and fills, and the
// row-wise ops layer_norm, rms_norm and softmax. FLOPs per output element as
// listed below (an activation counts as one operation); bytes = every tensor
// input once + the output (broadcast shape, first tensor input's dtype) once.
#include <algorithm>
#include <map>

#include "profiling/analysis/OpWork.h"

namespace fuselab {

namespace {

enum class Kind : uint8_t {
  Map,       // out = f(inputs), broadcast: reads the inputs, writes the output
  Copy,      // copy_(self, src): reads src, writes self
  Fill,      // fill_/zero_(self): writes self
  RowWise,   // layer_norm, rms_norm, softmax: reads input (+ weights), writes an output like the input
};

struct Model {
  Kind kind;
  double flops_per_element;
};

const std::map<std::string_view, Model, std::less<>>& models() {
  static const std::map<std::string_view, Model, std::less<>> table = [] {
    std::map<std::string_view, Model, std::less<>> m;
    for (std::string_view op : {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "where", "neg", "abs", "exp",
                                "log", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "sigmoid", "tanh", "relu", "gelu",
                                "silu", "clamp", "clamp_min", "clamp_max", "hardtanh", "leaky_relu", "threshold"})
      m.emplace(op, Model{Kind::Map, 1});
    m.emplace("fuselab::geglu", Model{Kind::Map, 2});  // gelu(gate) * up: two per output element
    m.emplace("copy_", Model{Kind::Copy, 0});
    m.emplace("clone", Model{Kind::Copy, 0});
    m.emplace("fill_", Model{Kind::Fill, 0});
    m.emplace("zero_", Model{Kind::Fill, 0});
    // mean, variance (sub, square, add), normalize (sub, mul), affine (mul, add)
    m.emplace("layer_norm", Model{Kind::RowWise, 8});
    m.emplace("native_layer_norm", Model{Kind::RowWise, 8});
    // square, add, scale, weight
    m.emplace("rms_norm", Model{Kind::RowWise, 4});
    m.emplace("_fused_rms_norm", Model{Kind::RowWise, 4});
    // max, subtract, exp, sum, divide
    for (std::string_view op : {"softmax", "_softmax", "log_softmax", "_log_softmax"})
      m.emplace(op, Model{Kind::RowWise, 5});
    return m;
  }();
  return table;
}

// "aten::add_" -> "add"; "aten::copy_" stays "copy_" (its own model).
std::string_view modelKey(std::string_view op_name) {
  if (op_name.starts_with("aten::")) op_name.remove_prefix(6);
  if (models().count(op_name)) return op_name;
  if (op_name.ends_with('_')) {
    std::string_view base = op_name.substr(0, op_name.size() - 1);
    if (auto it = models().find(base); it != models().end() && it->second.kind == Kind::Map) return base;
  }
  return {};
}

// Product of the broadcast shape of the tensor inputs.
double broadcastElements(const OpInputs& in) {
  std::vector<int64_t> shape;
  for (const OpInput& i : in.inputs) {
    if (i.dims.empty()) continue;
    if (i.dims.size() > shape.size()) shape.insert(shape.begin(), i.dims.size() - shape.size(), 1);
    const size_t lead = shape.size() - i.dims.size();
    for (size_t k = 0; k < i.dims.size(); ++k) shape[lead + k] = std::max(shape[lead + k], i.dims[k]);
  }
  if (shape.empty()) return 0;
  double n = 1;
  for (int64_t d : shape) n *= double(d);
  return n;
}

}  // namespace

bool isElementwiseModelName(std::string_view op_name) { return !modelKey(op_name).empty(); }

std::optional<OpWorkResult> elementwiseWork(std::string_view op_name, const OpInputs& in) {
  const std::string_view key = modelKey(op_name);
  if (key.empty()) return std::nullopt;
  const Model model = models().find(key)->second;
  const std::string name(op_name);
  const OpInput* first = nullptr;
  for (const OpInput& i : in.inputs)
    if (!i.dims.empty()) {
      first = &i;
      break;
    }
  if (!first) return OpWorkResult{std::nullopt, name + ": no tensor input recorded"};
  Work w;
  w.precision = precisionOfType(first->type);
  auto bytesOf = [&](const OpInput& i, double elements) -> std::optional<double> {
    auto e = elementBytes(i);
    if (!e) return std::nullopt;
    return elements * *e;
  };
  auto unknownType = [&](const OpInput& i) {
    return OpWorkResult{std::nullopt, name + ": unknown dtype '" + i.type + "'"};
  };
  switch (model.kind) {
    case Kind::Fill: {
      auto b = bytesOf(*first, double(first->numel()));
      if (!b) return unknownType(*first);
      w.bytes = *b;
      return OpWorkResult{w, name + ": writes its tensor once"};
    }
    case Kind::Copy: {
      // copy_(self, src): src read, self written; clone(self): self read, a copy written.
      const OpInput& dst = *first;
      const OpInput* src = &dst;
      if (key == "copy_") {
        if (in.inputs.size() < 2 || in.inputs[1].dims.empty())
          return OpWorkResult{std::nullopt, name + ": no source tensor recorded"};
        src = &in.inputs[1];
      }
      auto r = bytesOf(*src, double(src->numel()));
      auto wr = bytesOf(dst, double(dst.numel()));
      if (!r) return unknownType(*src);
      if (!wr) return unknownType(dst);
      w.bytes = *r + *wr;
      return OpWorkResult{w, name + ": reads the source once, writes the copy once"};
    }
    case Kind::Map:
    case Kind::RowWise: {
      const double out = model.kind == Kind::Map ? broadcastElements(in) : double(first->numel());
      // Row-wise ops: the row length and eps are not tensors; weight and bias are read once.
      for (const OpInput& i : in.inputs) {
        if (i.dims.empty()) continue;
        auto b = bytesOf(i, double(i.numel()));
        if (!b) return unknownType(i);
        w.bytes += *b;
      }
      w.bytes += *bytesOf(*first, out);
      w.flops = model.flops_per_element * out;
      return OpWorkResult{w, name + ": " + std::to_string(int(model.flops_per_element)) +
                                 " FLOP per output element; inputs and output once"};
    }
  }
  return std::nullopt;
}

}  // namespace fuselab
