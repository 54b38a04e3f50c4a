// Internal to the work models (OpWork*.cpp): accumulating an op's FLOPs and
// bytes from its recorded inputs, with the first reason it cannot.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "profiling/analysis/work/OpWork.h"

namespace fuselab {

// "aten::addmm" -> "addmm"; other namespaces are kept ("fuselab::geglu").
inline std::string_view shortOpName(std::string_view op_name) {
  if (op_name.starts_with("aten::")) op_name.remove_prefix(6);
  return op_name;
}

// Product of d[begin, end).
inline double product(const std::vector<int64_t>& d, size_t begin, size_t end) {
  double p = 1;
  for (size_t i = begin; i < end && i < d.size(); ++i) p *= double(d[i]);
  return p;
}

struct WorkBuilder {
  const OpInputs& in;
  std::string_view name;
  Work work;
  std::string error;

  // Bytes of input i read once (its distinct elements); false (with error)
  // when its dtype is unknown.
  bool read(size_t i) {
    if (i >= in.inputs.size()) return fail("missing input " + std::to_string(i));
    if (in.inputs[i].dims.empty()) return true;  // a scalar or an absent optional input
    auto e = elementBytes(in.inputs[i]);
    if (!e) return fail("unknown dtype '" + in.inputs[i].type + "' of input " + std::to_string(i));
    work.bytes += in.inputs[i].distinctElements() * *e;
    return true;
  }
  // `elements` elements of input i's dtype written (or read) once.
  bool write(size_t i, double elements) {
    auto e = i < in.inputs.size() ? elementBytes(in.inputs[i]) : std::nullopt;
    if (!e) return fail("unknown dtype of input " + std::to_string(i));
    work.bytes += elements * *e;
    return true;
  }
  bool fail(std::string why) {
    if (error.empty()) error = std::string(name) + ": " + std::move(why);
    return false;
  }
  // Input i's dims; none for an input the op was not recorded with.
  const std::vector<int64_t>& dims(size_t i) const {
    static const std::vector<int64_t> kNone;
    return i < in.inputs.size() ? in.inputs[i].dims : kNone;
  }
  bool rank(size_t i, size_t r) {
    if (i >= in.inputs.size() || dims(i).size() != r)
      return fail("input " + std::to_string(i) + " is not " + std::to_string(r) + "-D");
    return true;
  }
  // The precision of the first tensor input.
  void precisionFromFirstTensor() {
    for (const OpInput& i : in.inputs)
      if (!i.dims.empty()) {
        work.precision = precisionOfType(i.type);
        return;
      }
  }
  OpWorkResult result(std::string formula) {
    if (!error.empty()) return {std::nullopt, error};
    return {work, std::string(name) + ": " + formula};
  }
};

}  // namespace fuselab
