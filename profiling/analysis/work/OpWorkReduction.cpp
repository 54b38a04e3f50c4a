// Work models of reductions (sum, mean, amax, all, norms, var, ...) and the
// negative log-likelihood loss, forward and backward.
// - A reduction reads its input once and writes its output once: the input
//   with the reduced dims (a concrete "[0]" or "-1"; none or "[]" reduces
//   all) taken out, at the input's dtype (bool for all/any). FLOPs per input
//   element: 1 (2 for norms, 3 for var, std and logsumexp).
// - nll_loss_forward(self [N, C], target [N], ...) reads one element of self
//   per target, the targets, and writes the loss; nll_loss_backward writes
//   one element of the input's gradient per target, reads the targets (the
//   rest of the gradient is zeroed by a fill, which carries its own bytes).
#include <algorithm>
#include <map>

#include "profiling/analysis/work/OpWorkBuilder.h"

namespace fuselab {

namespace {

struct Reduction {
  size_t dim_at;  // the input holding the reduced dims
  double flops_per_element;
  bool bool_output = false;
};

const std::map<std::string_view, Reduction, std::less<>>& reductions() {
  static const std::map<std::string_view, Reduction, std::less<>> table = {
      {"sum", {1, 1}},  {"nansum", {1, 1}}, {"mean", {1, 1}},   {"amax", {1, 1}},
      {"amin", {1, 1}}, {"prod", {1, 1}},   {"all", {1, 1, true}}, {"any", {1, 1, true}},
      {"norm", {2, 2}}, {"linalg_vector_norm", {2, 2}}, {"var", {1, 3}}, {"std", {1, 3}},
      {"logsumexp", {1, 3}},
  };
  return table;
}

bool isNllLoss(std::string_view s) {
  return s == "nll_loss_forward" || s == "nll_loss2d_forward" || s == "nll_loss_backward" ||
         s == "nll_loss2d_backward";
}

OpWorkResult reduction(WorkBuilder& b, const Reduction& r) {
  const auto& x = b.dims(0);
  if (x.empty()) {
    b.fail("no tensor input recorded");
    return b.result("");
  }
  const double numel = product(x, 0, x.size());
  double reduced = numel;  // no dims recorded, or "[]": everything
  std::vector<int64_t> dims;
  if (auto list = b.in.concreteInts(r.dim_at)) dims = *list;
  else if (auto one = b.in.concreteInt(r.dim_at)) dims = {*one};
  if (!dims.empty()) {
    reduced = 1;
    for (int64_t d : dims) {
      const int64_t at = d < 0 ? d + int64_t(x.size()) : d;
      if (at < 0 || at >= int64_t(x.size())) {
        b.fail("reduced dim " + std::to_string(d) + " outside the input's " + std::to_string(x.size()));
        return b.result("");
      }
      reduced *= double(x[at]);
    }
  }
  b.precisionFromFirstTensor();
  b.read(0);
  const double out = reduced > 0 ? numel / reduced : 0;
  if (r.bool_output) b.work.bytes += out;
  else b.write(0, out);
  b.work.flops = r.flops_per_element * numel;
  return b.result("reads the input once, writes the reduced output once, " +
                  std::to_string(int(r.flops_per_element)) + " FLOP per input element");
}

// nll_loss_forward(self, target, weight, reduction, ignore_index);
// nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight).
OpWorkResult nllLoss(WorkBuilder& b, bool backward) {
  const size_t self_at = backward ? 1 : 0, target_at = self_at + 1;
  const auto& target = b.dims(target_at);
  if (b.dims(self_at).empty() || target.empty()) {
    b.fail("self or target not recorded");
    return b.result("");
  }
  const double n = product(target, 0, target.size());
  b.precisionFromFirstTensor();
  b.read(target_at);
  b.write(self_at, n);  // one element of self (or of its gradient) per target
  if (!backward) b.write(self_at, b.in.concreteInt(3).value_or(1) == 0 ? n : 1);  // the loss
  b.work.flops = n;
  return b.result(backward ? "writes one gradient element per target, reads the targets"
                           : "reads one element per target and the targets, writes the loss");
}

}  // namespace

bool isReductionModelName(std::string_view op_name) {
  const std::string_view s = shortOpName(op_name);
  return reductions().count(s) || isNllLoss(s);
}

std::optional<OpWorkResult> reductionWork(std::string_view op_name, const OpInputs& in) {
  const std::string_view s = shortOpName(op_name);
  WorkBuilder b{in, op_name, {}, {}};
  if (auto it = reductions().find(s); it != reductions().end()) {
    Reduction r = it->second;
    if (s == "mean" && in.inputs.size() == 2) r.dim_at = in.inputs.size();  // mean(self, dtype): all
    return reduction(b, r);
  }
  if (isNllLoss(s)) return nllLoss(b, s.ends_with("backward"));
  return std::nullopt;
}

}  // namespace fuselab
