// Work models of elementwise and activation ops and their backwards, dropout,
// copies and fills, and the row-wise ops layer_norm, rms_norm and softmax and
// their backwards. FLOPs per output element as listed below (an activation or
// its derivative counts as one operation); bytes = every tensor input once +
// the outputs once. An output has the widest floating dtype of the inputs
// (where(cond, x, y) writes x's), or bool for comparisons, except row-wise
// ops, copies and fills, which write their first tensor's; the precision is
// that dtype's.
#include <algorithm>
#include <map>

#include "profiling/analysis/work/OpWork.h"

namespace fuselab {

namespace {

enum class Kind : uint8_t {
  Map,        // out = f(inputs), broadcast: reads the inputs, writes the output
  Predicate,  // a Map whose output is bool (isinf, eq, ...)
  Dropout,    // native_dropout(x): reads x, writes the output and a bool mask
  Copy,       // copy_(self, src): reads src, writes self
  Fill,       // fill_/zero_(self): writes self
  RowWise,    // layer_norm, softmax, ...: reads its tensors, writes an output like the first
  RowWiseBackward,  // a norm's backward: also writes the weight's (and bias') gradient
};

struct Model {
  Kind kind;
  double flops_per_element;
  int weight_at = -1;      // RowWiseBackward: the weight input, whose gradients are written
  int weight_grads = 0;    // how many weight-shaped gradients (weight, bias)
  int skip_input = -1;     // an input the kernels do not read (layer_norm_backward's bias)
  double weight_pass_flops = 0;  // RowWiseBackward: FLOPs per element of the weight gradients' pass
};

const std::map<std::string_view, Model, std::less<>>& models() {
  static const std::map<std::string_view, Model, std::less<>> table = [] {
    std::map<std::string_view, Model, std::less<>> m;
    for (std::string_view op : {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "where", "neg", "abs", "exp",
                                "log", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "sigmoid", "tanh", "relu", "gelu",
                                "silu", "clamp", "clamp_min", "clamp_max", "hardtanh", "leaky_relu", "threshold",
                                "square", "masked_fill", "sign"})
      m.emplace(op, Model{Kind::Map, 1});
    // The derivative times the incoming gradient: two per element.
    for (std::string_view op : {"gelu_backward", "silu_backward", "sigmoid_backward", "tanh_backward",
                                "threshold_backward", "hardtanh_backward", "leaky_relu_backward",
                                "native_dropout_backward"})
      m.emplace(op, Model{Kind::Map, 2});
    for (std::string_view op : {"addcmul", "addcdiv", "lerp"}) m.emplace(op, Model{Kind::Map, 2});
    for (std::string_view op : {"tril", "triu"}) m.emplace(op, Model{Kind::Map, 0});
    for (std::string_view op : {"isinf", "isnan", "isneginf", "isposinf", "eq", "ne", "lt", "le", "gt", "ge",
                                "logical_not", "logical_and", "logical_or"})
      m.emplace(op, Model{Kind::Predicate, 1});
    m.emplace("native_dropout", Model{Kind::Dropout, 2});  // keep or not, scale
    m.emplace("fuselab::geglu", Model{Kind::Map, 2});  // gelu(gate) * up: two per output element
    m.emplace("copy_", Model{Kind::Copy, 0});
    m.emplace("clone", Model{Kind::Copy, 0});
    m.emplace("fill_", Model{Kind::Fill, 0});
    m.emplace("zero_", Model{Kind::Fill, 0});
    // mean, variance (sub, square, add), normalize (sub, mul), affine (mul, add)
    m.emplace("layer_norm", Model{Kind::RowWise, 8});
    m.emplace("native_layer_norm", Model{Kind::RowWise, 8});
    // (grad_out, input, shape, mean, rstd, weight, bias, mask): x-hat (2),
    // weight and bias gradients (3), dx-hat (1), two row means (2), dx (4).
    m.emplace("native_layer_norm_backward", Model{Kind::RowWiseBackward, 12, 5, 2, 6, 5});
    // square, add, scale, weight
    m.emplace("rms_norm", Model{Kind::RowWise, 4});
    m.emplace("_fused_rms_norm", Model{Kind::RowWise, 4});
    // (grad_out, input, shape, rstd, weight, mask): x-hat, weight gradient, a row mean, dx.
    m.emplace("_fused_rms_norm_backward", Model{Kind::RowWiseBackward, 8, 4, 1, -1, 3});
    // max, subtract, exp, sum, divide
    for (std::string_view op : {"softmax", "_softmax", "log_softmax", "_log_softmax", "_safe_softmax"})
      m.emplace(op, Model{Kind::RowWise, 5});
    // (grad_out, output, dim, dtype): a row's dot product (2), subtract, multiply (or exp)
    for (std::string_view op : {"_softmax_backward_data", "_log_softmax_backward_data"})
      m.emplace(op, Model{Kind::RowWise, 4});
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
    if (auto it = models().find(base);
        it != models().end() && (it->second.kind == Kind::Map || it->second.kind == Kind::Predicate))
      return base;
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

// The widest floating-point tensor input (the output's dtype), else the first tensor input.
const OpInput* outputLike(const OpInputs& in) {
  if (const OpInput* widest = widestFloatInput(in)) return widest;
  for (const OpInput& i : in.inputs)
    if (!i.dims.empty()) return &i;
  return nullptr;
}

// The first tensor input (one with dims); nullptr when none was recorded.
const OpInput* firstTensor(const OpInputs& in) {
  for (const OpInput& i : in.inputs)
    if (!i.dims.empty()) return &i;
  return nullptr;
}

// An op with an elementwise model, as each kind's work below reads it.
struct ModelledOp {
  const std::string& name;  // as recorded, for the notes
  std::string_view key;     // its model's name
  const Model& model;
  const OpInputs& in;
  const OpInput& first;     // the first tensor input
  const OpInput& out_like;  // the input whose dtype the output has
};

// `elements` elements of the input's dtype, in bytes; nullopt when the dtype is not known.
std::optional<double> bytesOf(const OpInput& i, double elements) {
  auto e = elementBytes(i);
  if (!e) return std::nullopt;
  return elements * *e;
}

OpWorkResult unknownType(const ModelledOp& op, const OpInput& i) {
  return OpWorkResult{std::nullopt, op.name + ": unknown dtype '" + i.type + "'"};
}

// fill_/zero_(self): self written once.
OpWorkResult fillWork(const ModelledOp& op, Work w) {
  auto b = bytesOf(op.first, op.first.numel());
  if (!b) return unknownType(op, op.first);
  w.bytes = *b;
  return OpWorkResult{w, op.name + ": writes its tensor once"};
}

// copy_(self, src): src read, self written; clone(self): self read, a copy written.
OpWorkResult copyWork(const ModelledOp& op, Work w) {
  const OpInput& dst = op.first;
  const OpInput* src = &dst;
  if (op.key == "copy_") {
    if (op.in.inputs.size() < 2 || op.in.inputs[1].dims.empty())
      return OpWorkResult{std::nullopt, op.name + ": no source tensor recorded"};
    src = &op.in.inputs[1];
  }
  auto r = bytesOf(*src, src->distinctElements());
  auto wr = bytesOf(dst, dst.numel());
  if (!r) return unknownType(op, *src);
  if (!wr) return unknownType(op, dst);
  w.bytes = *r + *wr;
  return OpWorkResult{w, op.name + ": reads the source once, writes the copy once"};
}

// A norm's backward whose weight was recorded: `w` holds the reads and the
// input's gradient (in_grad bytes); the weight's gradients are written once
// more. The work is split in two parts, one per kernel.
OpWorkResult normBackwardWork(const ModelledOp& op, Work w, double in_grad, double out) {
  const Model& model = op.model;
  const OpInput& weight = op.in.inputs[model.weight_at];
  const double weight_bytes = *bytesOf(weight, weight.numel());
  w.bytes += model.weight_grads * weight_bytes;
  const std::string what = "inputs once, the input's and the weight's gradients once";
  // ATen's CUDA backward is two kernels, each reading the gradient and
  // the input (and the row statistics): GammaBetaBackward writes the
  // weight's gradients, the other the input's. Each is given its pass.
  const double reads = w.bytes - in_grad - model.weight_grads * weight_bytes;
  const double weight_pass_flops = model.weight_pass_flops * out;
  const double input_pass_flops = (model.flops_per_element - model.weight_pass_flops + 2) * out;
  OpWorkResult r{w, ""};
  r.parts.push_back({"GammaBeta", Work{weight_pass_flops, reads - weight_bytes + model.weight_grads * weight_bytes,
                                       w.precision}});
  r.parts.push_back({"", Work{input_pass_flops, reads + in_grad, w.precision}});
  r.work->flops = model.flops_per_element * out;
  r.note = op.name + ": " + std::to_string(int(model.flops_per_element)) + " FLOP per element; " + what;
  return r;
}

// Map, Predicate, Dropout and the row-wise ops: the tensor inputs read once,
// the outputs written once.
OpWorkResult readWriteWork(const ModelledOp& op, Work w) {
  const Model& model = op.model;
  const OpInputs& in = op.in;
  const bool rows = model.kind == Kind::RowWise || model.kind == Kind::RowWiseBackward;
  const double out = rows ? op.first.numel() : broadcastElements(in);
  // Row-wise ops: the row length and eps are not tensors; weight and bias are read once.
  for (size_t k = 0; k < in.inputs.size(); ++k) {
    const OpInput& i = in.inputs[k];
    if (i.dims.empty() || int(k) == model.skip_input) continue;
    auto b = bytesOf(i, i.distinctElements());
    if (!b) return unknownType(op, i);
    w.bytes += *b;
  }
  std::string what = "inputs and output once";
  if (model.kind == Kind::Predicate) {
    w.bytes += out;  // bool
    what = "inputs once, a bool output";
  } else if (model.kind == Kind::RowWiseBackward) {
    // The input's gradient at the input's dtype (input 1), the weight's gradients at the weight's.
    auto in_grad = bytesOf(in.inputs.size() > 1 ? in.inputs[1] : op.first, out);
    if (!in_grad) return unknownType(op, op.first);
    w.bytes += *in_grad;
    if (model.weight_at >= 0 && size_t(model.weight_at) < in.inputs.size() &&
        !in.inputs[model.weight_at].dims.empty())
      return normBackwardWork(op, w, *in_grad, out);
  } else {
    w.bytes += *bytesOf(op.out_like, out);
    if (model.kind == Kind::Dropout) {
      w.bytes += out;  // the bool mask
      what = "input once, output and bool mask once";
    }
  }
  w.flops = model.flops_per_element * out;
  return OpWorkResult{w, op.name + ": " + std::to_string(int(model.flops_per_element)) + " FLOP per " +
                             (rows ? "element; " : "output element; ") + what};
}

}  // namespace

bool isElementwiseModelName(std::string_view op_name) { return !modelKey(op_name).empty(); }

bool isMemoryHelperName(std::string_view op_name) {
  const std::string_view key = modelKey(op_name);
  if (key.empty()) return false;
  const Kind k = models().find(key)->second.kind;
  return k == Kind::Map || k == Kind::Predicate || k == Kind::Copy || k == Kind::Fill;
}

std::optional<OpWorkResult> elementwiseWork(std::string_view op_name, const OpInputs& in) {
  const std::string_view key = modelKey(op_name);
  if (key.empty()) return std::nullopt;
  const Model model = models().find(key)->second;
  const std::string name(op_name);
  const OpInput* first = firstTensor(in);
  if (!first) return OpWorkResult{std::nullopt, name + ": no tensor input recorded"};
  // Copies, fills and row-wise ops write their first tensor's dtype.
  const bool like_first = model.kind == Kind::Copy || model.kind == Kind::Fill || model.kind == Kind::RowWise ||
                          model.kind == Kind::RowWiseBackward;
  const OpInput& out_like = like_first ? *first : *outputLike(in);
  const ModelledOp op{name, key, model, in, *first, out_like};
  Work w;
  w.precision = precisionOfType(out_like.type);
  switch (model.kind) {
    case Kind::Fill: return fillWork(op, w);
    case Kind::Copy: return copyWork(op, w);
    case Kind::Map:
    case Kind::Predicate:
    case Kind::Dropout:
    case Kind::RowWise:
    case Kind::RowWiseBackward: return readWriteWork(op, w);
  }
  return std::nullopt;
}

}  // namespace fuselab
