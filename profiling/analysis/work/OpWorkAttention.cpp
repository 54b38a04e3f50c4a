// Work models of scaled-dot-product attention, forward and backward, for
// every backend's op (the dispatcher's scaled_dot_product_attention, math,
// flash, efficient, cuDNN), from q [B, Hq, L, E], k [B, Hk, S, E] and
// v [B, Hk, S, Ev] (flash and efficient's inner ops: [B, L, H, E]).
// - Forward: QK^T and PV for every query head, 2 x B x Hq x L x S x (E + Ev)
//   FLOPs; reads q, k, v (and a mask), writes the output.
// - Backward: five products (S = QK^T recomputed, dV, dP, dQ, dK), 2 x B x
//   Hq x L x S x (3E + 2Ev) FLOPs, 2.5x the forward for E = Ev; reads the
//   output's gradient, q, k, v, the output and the log-sum-exp, writes dq,
//   dk, dv. Flash and cuDNN launch two helper kernels beside the main one:
//   dot(dO, O) per query row (reads dO and O, writes a float per row and
//   zeroes an fp32 dq accumulator) and dq's conversion from that accumulator
//   (reads it, writes dq). Each is given that pass, and the main kernel the
//   op's work (KernelWork.h parts).
// - Causal (the op's is_causal flag, or efficient attention's mask type 1):
//   only the query/key pairs with key <= query, about half for L = S.
#include <algorithm>
#include <array>

#include "profiling/analysis/work/OpWorkBuilder.h"

namespace fuselab {

namespace {

struct AttentionOp {
  std::string_view name;
  bool backward;
  bool heads_second;  // [B, H, L, E]; else [B, L, H, E]
  size_t causal_at;   // the is_causal flag's input, or the mask type's
  bool mask_type;     // causal_at holds efficient attention's custom_mask_type
};

constexpr std::array<AttentionOp, 15> kOps = {{
    {"scaled_dot_product_attention", false, true, 5, false},
    {"_scaled_dot_product_attention_math", false, true, 5, false},
    {"_scaled_dot_product_flash_attention", false, true, 4, false},
    {"_scaled_dot_product_flash_attention_for_cpu", false, true, 4, false},
    {"_scaled_dot_product_efficient_attention", false, true, 6, false},
    {"_scaled_dot_product_cudnn_attention", false, true, 6, false},
    {"_cudnn_attention_forward", false, true, 10, false},
    {"_flash_attention_forward", false, false, 8, false},
    {"_efficient_attention_forward", false, false, 9, true},
    {"_scaled_dot_product_flash_attention_backward", true, true, 11, false},
    {"_scaled_dot_product_efficient_attention_backward", true, true, 11, false},
    {"_scaled_dot_product_cudnn_attention_backward", true, true, 14, false},
    {"_cudnn_attention_backward", true, true, 14, false},
    {"_flash_attention_backward", true, false, 11, false},
    {"_efficient_attention_backward", true, false, 14, true},
}};

const AttentionOp* find(std::string_view op_name) {
  const std::string_view s = shortOpName(op_name);
  for (const AttentionOp& op : kOps)
    if (op.name == s) return &op;
  return nullptr;
}

// Query/key pairs with key <= query (top-left aligned, as torch's is_causal).
double causalPairs(double l, double s) { return l <= s ? l * (l + 1) / 2 : s * (s + 1) / 2 + (l - s) * s; }

}  // namespace

bool isAttentionModelName(std::string_view op_name) { return find(op_name) != nullptr; }

std::optional<OpWorkResult> attentionWork(std::string_view op_name, const OpInputs& in) {
  const AttentionOp* op = find(op_name);
  if (!op) return std::nullopt;
  WorkBuilder b{in, op_name, {}, {}};
  const size_t q_at = op->backward ? 1 : 0;  // a backward's first input is the output's gradient
  if (!b.rank(q_at, 4) || !b.rank(q_at + 1, 4) || !b.rank(q_at + 2, 4)) return b.result("");
  const auto &q = b.dims(q_at), &k = b.dims(q_at + 1), &v = b.dims(q_at + 2);
  const size_t seq = op->heads_second ? 2 : 1, heads = op->heads_second ? 1 : 2;
  const double batch = double(q[0]), hq = double(q[heads]), l = double(q[seq]), s = double(k[seq]);
  const double e = double(q[3]), ev = double(v[3]);
  bool causal = false;
  if (op->mask_type) causal = in.concreteInt(op->causal_at).value_or(0) != 0;
  else causal = in.concreteFlag(op->causal_at).value_or(false);
  const double pairs = causal ? causalPairs(l, s) : l * s;
  b.precisionFromFirstTensor();
  // Every tensor of rank 2 or more is read once: q, k, v, a mask or bias;
  // in a backward also the output's gradient, the output and the log-sum-exp.
  for (size_t i = 0; i < in.inputs.size(); ++i)
    if (in.inputs[i].dims.size() >= 2) b.read(i);
  std::string formula;
  if (!op->backward) {
    b.write(0, batch * hq * l * ev);
    b.work.flops = 2 * batch * hq * pairs * (e + ev);
    formula = "2 x B x H x L x S x (E + Ev)";
  } else {
    for (size_t i = q_at; i < q_at + 3; ++i) b.write(i, in.inputs[i].numel());
    b.work.flops = 2 * batch * hq * pairs * (3 * e + 2 * ev);
    formula = "2 x B x H x L x S x (3E + 2Ev): S recomputed, dV, dP, dQ, dK";
  }
  OpWorkResult r = b.result(formula + (causal ? ", causal: pairs with key <= query only" : ", no mask"));
  if (r.work && op->backward) {
    // Flash and cuDNN run two helpers beside the main kernel, each its own
    // pass: dot(dO, O) per query row (which also zeroes the fp32 dq
    // accumulator the main kernel adds into), and dq converted from it.
    const double e_bytes = elementBytes(in.inputs[q_at]).value_or(2);  // q was read: its dtype is known
    const double rows = batch * hq * l, out = rows * ev, q_elements = in.inputs[q_at].numel();
    r.parts.push_back(
        {"dot_do_o", Work{2 * out, 2 * out * e_bytes + rows * 4 + q_elements * 4, r.work->precision}});
    r.parts.push_back({"convert_dq", Work{0, q_elements * (4 + e_bytes), r.work->precision}});
    r.parts.push_back({"", *r.work});
  }
  return r;
}

}  // namespace fuselab
