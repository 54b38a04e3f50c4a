// Work models of ops that move rows by index, and concatenation. None
// computes: FLOPs 0, except embedding_dense_backward's accumulation (one add
// per gradient element).
// - embedding(weight [V, D], indices): reads the indices and one row per
//   index, writes them. index_select and gather alike (the output: the
//   selected rows / the index's shape).
// - embedding_dense_backward(grad [.., D], indices, num_weights, ...): reads
//   the gradient and the indices, writes the weight's gradient [num_weights, D].
// - cat(tensors, dim): reads every tensor of the list, writes them once.
#include <algorithm>

#include "profiling/analysis/work/OpWorkBuilder.h"

namespace fuselab {

namespace {

constexpr std::string_view kOps[] = {"embedding", "embedding_dense_backward", "index_select", "gather", "cat"};

// Bytes of the index tensor at i (its own dtype: int64 usually).
bool readIndex(WorkBuilder& b, size_t i) {
  if (b.dims(i).empty()) return b.fail("index " + std::to_string(i) + " not recorded");
  return b.read(i);
}

}  // namespace

bool isIndexingModelName(std::string_view op_name) {
  const std::string_view s = shortOpName(op_name);
  for (std::string_view op : kOps)
    if (op == s) return true;
  return false;
}

std::optional<OpWorkResult> indexingWork(std::string_view op_name, const OpInputs& in) {
  const std::string_view s = shortOpName(op_name);
  if (!isIndexingModelName(op_name)) return std::nullopt;
  WorkBuilder b{in, op_name, {}, {}};
  b.precisionFromFirstTensor();
  const auto& self = b.dims(0);
  if (s == "cat") {
    if (in.inputs.empty() || !in.inputs[0].list_recorded) {
      b.fail("the tensor list's shapes were not recorded");
      return b.result("");
    }
    double elements = 0;
    for (const auto& d : in.inputs[0].list_dims) elements += product(d, 0, d.size());
    b.write(0, 2 * elements);
    b.work.precision = precisionOfType(in.inputs[0].type);
    return b.result("reads each tensor once, writes the concatenation once");
  }
  if (self.empty()) {
    b.fail("no tensor input recorded");
    return b.result("");
  }
  if (s == "embedding") {
    const double rows = product(b.dims(1), 0, b.dims(1).size());
    if (readIndex(b, 1)) b.write(0, 2 * rows * double(self.back()));
    return b.result("reads the indices and one row per index, writes the rows");
  }
  if (s == "embedding_dense_backward") {
    const auto num_weights = in.concreteInt(2);
    if (!num_weights) {
      b.fail("num_weights not recorded");
      return b.result("");
    }
    b.read(0);
    if (readIndex(b, 1)) b.write(0, double(*num_weights) * double(self.back()));
    b.work.flops = product(self, 0, self.size());
    return b.result("reads the gradient and the indices, writes the weight's gradient, one add per element");
  }
  if (s == "index_select") {
    const auto dim = in.concreteInt(1);
    if (!dim || *dim < -int64_t(self.size()) || *dim >= int64_t(self.size())) {
      b.fail("dim not recorded");
      return b.result("");
    }
    const size_t at = size_t(*dim < 0 ? *dim + int64_t(self.size()) : *dim);
    const double out = product(self, 0, self.size()) / double(std::max<int64_t>(self[at], 1)) *
                       product(b.dims(2), 0, b.dims(2).size());
    if (readIndex(b, 2)) b.write(0, 2 * out);
    return b.result("reads the index and the selected rows, writes them");
  }
  // gather(self, dim, index): the output has the index's shape.
  const double out = product(b.dims(2), 0, b.dims(2).size());
  if (readIndex(b, 2)) b.write(0, 2 * out);
  return b.result("reads the index and one element per index, writes them");
}

}  // namespace fuselab
