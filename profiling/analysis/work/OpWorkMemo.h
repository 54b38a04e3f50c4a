// opWork computed once per op name and inputs: a trace repeats the same ops
// with the same shapes (at 10M events opWork was a fifth of attributeWork).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profiling/analysis/work/OpWork.h"

namespace fuselab {

class OpWorkMemo {
 public:
  // opWork(name, in), from the memo when the same name id and inputs (dims,
  // strides, types, concrete values, list dims) came before.
  const OpWorkResult& get(uint32_t name_id, std::string_view name, const OpInputs& in);

 private:
  void appendDims(const std::vector<int64_t>& dims);
  void appendSized(const std::string& text);

  std::string key_;
  std::unordered_map<std::string, OpWorkResult> results_;
};

}  // namespace fuselab
