// Work models of the optimizers' multi-tensor kernels: the fused optimizers
// (_fused_adamw_, _fused_adam_, _fused_sgd_) and the _foreach_* ops that
// unfused ones run, from the tensor lists' recorded dims.
// - Fused Adam/AdamW, per parameter element: reads the parameter, its
//   gradient and both moments, writes the parameter and the moments (7
//   accesses; 9 with amsgrad's running maximum), at the parameters' dtype;
//   15 FLOPs (weight decay 2, moments 7, bias-corrected step 6).
// - Fused SGD: reads parameter and gradient, writes the parameter (3
//   accesses, 4 FLOPs); with momentum also reads and writes the buffer (5, 7).
// - _foreach_<op>: every tensor list argument read once, one list written
//   (in place: the first); zero_ only writes, copy_ reads one list, norm
//   writes one value per tensor. One FLOP per element (two for addcmul,
//   addcdiv and lerp; none for copies).
// torch.profiler records no dims for a list of more than 30 tensors and never
// a list's dtype: KernelWork.cpp fills the parameters of a fused optimizer
// from the gradients the step accumulated and a list's dtype from its
// kernel's name (withCompletedInputs); otherwise the work is unknown.
#include "profiling/analysis/work/OpWorkBuilder.h"

namespace fuselab {

namespace {

bool isFusedOptimizer(std::string_view s) { return s == "_fused_adamw_" || s == "_fused_adam_" || s == "_fused_sgd_"; }

// Elements of the list at input i; nullopt (with the reason) when its dims or dtype are missing.
std::optional<double> listElements(WorkBuilder& b, size_t i) {
  if (i >= b.in.inputs.size() || !b.in.inputs[i].tensor_list) {
    b.fail("input " + std::to_string(i) + " is not a tensor list");
    return std::nullopt;
  }
  const OpInput& list = b.in.inputs[i];
  if (!list.list_recorded) {
    b.fail("no dims recorded for its tensor list (torch.profiler records none for lists of over 30 tensors)");
    return std::nullopt;
  }
  if (!elementBytes(list)) {
    b.fail("the tensor list's dtype is not recorded");
    return std::nullopt;
  }
  double n = 0;
  for (const auto& d : list.list_dims) n += d.empty() ? 1 : product(d, 0, d.size());  // a 0-D tensor: one
  return n;
}

OpWorkResult fused(WorkBuilder& b, std::string_view s) {
  const auto n = listElements(b, 0);
  if (!n) return b.result("");
  b.work.precision = precisionOfType(b.in.inputs[0].type);
  if (s == "_fused_sgd_") {
    const bool momentum = b.in.inputs.size() > 2 && b.in.inputs[2].list_recorded && !b.in.inputs[2].list_dims.empty();
    b.write(0, (momentum ? 5 : 3) * *n);
    b.work.flops = (momentum ? 7 : 4) * *n;
    return b.result(momentum ? "parameter, gradient, momentum read; parameter, momentum written; 7 FLOP each"
                             : "parameter, gradient read; parameter written; 4 FLOP each");
  }
  const bool amsgrad = b.in.concreteFlag(11).value_or(false);
  b.write(0, (amsgrad ? 9 : 7) * *n);
  b.work.flops = 15 * *n;
  return b.result(std::string("parameter, gradient, two moments") + (amsgrad ? ", maximum" : "") +
                  " read and all but the gradient written, per element; 15 FLOP each");
}

OpWorkResult foreach(WorkBuilder& b, std::string_view s) {
  std::string_view op = s.substr(std::string_view("_foreach_").size());
  if (op.ends_with('_')) op.remove_suffix(1);
  const auto n = listElements(b, 0);
  if (!n) return b.result("");
  size_t lists = 0;
  for (const OpInput& i : b.in.inputs) lists += i.tensor_list;
  double accesses = double(lists) + 1;  // each list read, one written
  double flops = 1;
  if (op == "zero") accesses = 1, flops = 0;
  else if (op == "copy") accesses = 2, flops = 0;
  else if (op == "norm") accesses = double(lists);
  else if (op == "addcmul" || op == "addcdiv" || op == "lerp") flops = 2;
  b.work.precision = precisionOfType(b.in.inputs[0].type);
  b.write(0, accesses * *n);
  b.work.flops = flops * *n;
  return b.result(std::to_string(int(accesses)) + " list accesses per element, " + std::to_string(int(flops)) +
                  " FLOP per element");
}

}  // namespace

bool isOptimizerModelName(std::string_view op_name) {
  const std::string_view s = shortOpName(op_name);
  return isFusedOptimizer(s) || s.starts_with("_foreach_");
}

bool isFusedOptimizerName(std::string_view op_name) { return isFusedOptimizer(shortOpName(op_name)); }

std::optional<OpWorkResult> optimizerWork(std::string_view op_name, const OpInputs& in) {
  const std::string_view s = shortOpName(op_name);
  if (!isOptimizerModelName(op_name)) return std::nullopt;
  WorkBuilder b{in, op_name, {}, {}};
  return isFusedOptimizer(s) ? fused(b, s) : foreach(b, s);
}

}  // namespace fuselab
