// parseOpInputs: an op's "Input Dims", "Input type", "Input Strides" and
// "Concrete Inputs". The analysis reads the args of every modelled op (a
// fifth of `fuselab analyze` went to nlohmann's DOM), so simdjson reads
// them; the rare args it cannot read the same way (simdjson errors,
// non-integer dims such as -0) go to the nlohmann reading, which defines the
// result.
#include <simdjson.h>

#include <charconv>
#include <nlohmann/json.hpp>

#include "profiling/analysis/work/OpWork.h"

namespace fuselab {

namespace {

// A "TensorList" input whose dims were left out is still a list.
void markUnrecordedLists(OpInputs& in) {
  for (OpInput& i : in.inputs)
    if (i.type == "TensorList") i.tensor_list = true;
}

// [d0, d1, ...] of non-negative integers; false for anything else.
bool readShape(const nlohmann::json& j, std::vector<int64_t>& out) {
  if (!j.is_array()) return false;
  for (const auto& d : j) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0) return false;
    out.push_back(d.get<int64_t>());
  }
  return true;
}

// [s0, s1, ...] of integers (a stride may be 0, never negative in a trace).
bool readStrides(const nlohmann::json& j, std::vector<int64_t>& out) {
  if (!j.is_array()) return false;
  for (const auto& d : j) {
    if (!d.is_number_integer()) return false;
    out.push_back(d.get<int64_t>());
  }
  return true;
}

OpInputs parseWithNlohmann(std::string_view args_json) {
  OpInputs out;
  const auto args = nlohmann::json::parse(args_json, nullptr, /*allow_exceptions=*/false);
  if (!args.is_object()) return out;
  const auto dims = args.find("Input Dims");
  if (dims == args.end() || !dims->is_array()) return out;
  for (const auto& d : *dims) {
    OpInput in;
    if (d.is_array() && !d.empty() && d[0].is_array()) {  // a tensor list: dims of each, the first's as dims
      in.tensor_list = in.list_recorded = true;
      for (const auto& element : d)
        if (!readShape(element, in.list_dims.emplace_back())) return out;
      in.dims = in.list_dims.front();
    } else if (!readShape(d, in.dims)) {
      return out;
    }
    out.inputs.push_back(std::move(in));
  }
  out.has_dims = true;
  const auto types = args.find("Input type");
  if (types != args.end() && types->is_array() && types->size() == out.inputs.size()) {
    for (size_t i = 0; i < types->size(); ++i)
      if ((*types)[i].is_string()) out.inputs[i].type = (*types)[i].get<std::string>();
    out.has_types = true;
    markUnrecordedLists(out);
  }
  const auto strides = args.find("Input Strides");
  if (strides != args.end() && strides->is_array() && strides->size() == out.inputs.size())
    for (size_t i = 0; i < strides->size(); ++i)
      if (!out.inputs[i].tensor_list && !readStrides((*strides)[i], out.inputs[i].strides))
        out.inputs[i].strides.clear();
  const auto concrete = args.find("Concrete Inputs");
  if (concrete != args.end() && concrete->is_array() && concrete->size() == out.inputs.size())
    for (size_t i = 0; i < concrete->size(); ++i)
      if ((*concrete)[i].is_string()) out.inputs[i].concrete = (*concrete)[i].get<std::string>();
  return out;
}

namespace dom = simdjson::dom;

struct Unsure {};  // simdjson may read it differently: use the nlohmann reading

// As readShape above; a number that is not an int64 could be one nlohmann
// reads as an integer (-0, uint64), so that case is left to it.
bool readShape(dom::element j, std::vector<int64_t>& out) {
  dom::array a;
  if (j.get_array().get(a)) return false;
  for (dom::element d : a) {
    if (d.is_int64()) {
      const int64_t x = d.get_int64().value_unsafe();
      if (x < 0) return false;
      out.push_back(x);
    } else if (d.is_number()) {
      throw Unsure{};
    } else {
      return false;
    }
  }
  return true;
}

OpInputs parseWithSimdjson(std::string_view args_json) {
  thread_local dom::parser parser;
  OpInputs out;
  dom::element root;
  if (parser.parse(args_json.data(), args_json.size()).get(root)) throw Unsure{};
  dom::object args;
  if (root.get_object().get(args)) return out;
  // A repeated key counts as its last occurrence (as nlohmann reads it).
  dom::element dims_value, types_value, concrete_value, strides_value;
  bool has_dims_key = false, has_types_key = false, has_concrete_key = false, has_strides_key = false;
  for (dom::key_value_pair kv : args) {
    if (kv.key == "Input Dims") dims_value = kv.value, has_dims_key = true;
    else if (kv.key == "Input type") types_value = kv.value, has_types_key = true;
    else if (kv.key == "Concrete Inputs") concrete_value = kv.value, has_concrete_key = true;
    else if (kv.key == "Input Strides") strides_value = kv.value, has_strides_key = true;
  }
  dom::array dims;
  if (!has_dims_key || dims_value.get_array().get(dims)) return out;
  for (dom::element d : dims) {
    OpInput in;
    dom::array list;
    dom::element first;
    if (!d.get_array().get(list) && !list.at(0).get(first) && first.is_array()) {
      in.tensor_list = in.list_recorded = true;
      for (dom::element element : list)
        if (!readShape(element, in.list_dims.emplace_back())) return out;
      in.dims = in.list_dims.front();
    } else if (!readShape(d, in.dims)) {
      return out;
    }
    out.inputs.push_back(std::move(in));
  }
  out.has_dims = true;
  dom::array types;
  if (has_types_key && !types_value.get_array().get(types) && types.size() == out.inputs.size()) {
    size_t i = 0;
    for (dom::element t : types) {
      std::string_view s;
      if (!t.get_string().get(s)) out.inputs[i].type = std::string(s);
      ++i;
    }
    out.has_types = true;
    markUnrecordedLists(out);
  }
  dom::array strides;
  if (has_strides_key && !strides_value.get_array().get(strides) && strides.size() == out.inputs.size()) {
    size_t i = 0;
    for (dom::element st : strides) {
      OpInput& in = out.inputs[i++];
      dom::array a;
      if (in.tensor_list || st.get_array().get(a)) continue;
      for (dom::element x : a) {
        if (!x.is_int64()) {
          in.strides.clear();
          break;
        }
        in.strides.push_back(x.get_int64().value_unsafe());
      }
    }
  }
  dom::array concrete;
  if (has_concrete_key && !concrete_value.get_array().get(concrete) && concrete.size() == out.inputs.size()) {
    size_t i = 0;
    for (dom::element c : concrete) {
      std::string_view s;
      if (!c.get_string().get(s)) out.inputs[i].concrete = std::string(s);
      ++i;
    }
  }
  return out;
}

// "12" -> 12, "-1" -> -1; nullopt for anything else.
std::optional<int64_t> parseInt(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<int64_t> OpInputs::concreteInt(size_t i) const {
  if (i >= inputs.size()) return std::nullopt;
  return parseInt(inputs[i].concrete);
}

std::optional<std::vector<int64_t>> OpInputs::concreteInts(size_t i) const {
  if (i >= inputs.size()) return std::nullopt;
  std::string_view s = inputs[i].concrete;
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') return std::nullopt;
  s = s.substr(1, s.size() - 2);
  std::vector<int64_t> out;
  while (!s.empty()) {
    const size_t comma = s.find(',');
    auto v = parseInt(s.substr(0, comma));
    if (!v) return std::nullopt;
    out.push_back(*v);
    s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
  }
  return out;
}

std::optional<bool> OpInputs::concreteFlag(size_t i) const {
  if (i >= inputs.size()) return std::nullopt;
  if (inputs[i].concrete == "True") return true;
  if (inputs[i].concrete == "False") return false;
  return std::nullopt;
}

OpInputs parseOpInputs(std::string_view args_json) {
  if (args_json.empty()) return {};
  try {
    return parseWithSimdjson(args_json);
  } catch (const Unsure&) {
    return parseWithNlohmann(args_json);
  }
}

}  // namespace fuselab
