// OpWorkMemo (OpWorkMemo.h): the inputs as one binary key.
#include "profiling/analysis/work/OpWorkMemo.h"

namespace fuselab {

const OpWorkResult& OpWorkMemo::get(uint32_t name_id, std::string_view name, const OpInputs& in) {
  key_.assign(reinterpret_cast<const char*>(&name_id), sizeof(name_id));
  key_ += char(in.has_dims);
  key_ += char(in.has_types);
  for (const OpInput& i : in.inputs) {
    key_ += char(i.tensor_list);
    key_ += char(i.list_recorded);
    appendDims(i.dims);
    appendDims(i.strides);
    appendSized(i.type);
    appendSized(i.concrete);
    const size_t lists = i.list_dims.size();
    key_.append(reinterpret_cast<const char*>(&lists), sizeof(lists));
    for (const auto& d : i.list_dims) appendDims(d);
  }
  auto it = results_.find(key_);
  if (it == results_.end()) it = results_.emplace(key_, opWork(name, in)).first;
  return it->second;
}

void OpWorkMemo::appendDims(const std::vector<int64_t>& dims) {
  const size_t n = dims.size();
  key_.append(reinterpret_cast<const char*>(&n), sizeof(n));
  key_.append(reinterpret_cast<const char*>(dims.data()), n * sizeof(int64_t));
}

void OpWorkMemo::appendSized(const std::string& text) {
  const size_t n = text.size();
  key_.append(reinterpret_cast<const char*>(&n), sizeof(n));
  key_ += text;
}

}  // namespace fuselab
