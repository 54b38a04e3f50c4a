// readCollectiveMetadata and dtypeBytes (CollectiveEvents.h): what
// record_param_comms, nccl:* / gloo:* and c10d:: ops say about a collective.
#include <cctype>
#include <nlohmann/json.hpp>
#include <string>

#include "profiling/analysis/collectives/CollectiveEvents.h"

namespace fuselab {

namespace {

std::optional<int64_t> intField(const nlohmann::json& args, const char* key) {
  auto it = args.find(key);
  if (it == args.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

std::string stringField(const nlohmann::json& args, const char* key) {
  auto it = args.find(key);
  return it != args.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Elements of the first input in "Input Dims": [[4096, 8], ...] -> 32768; a
// tensor list ([[[4096], [4096]], ...]) counts all its tensors. -1 unknown.
int64_t firstInputElements(const nlohmann::json& dims) {
  if (!dims.is_array() || dims.empty() || !dims[0].is_array() || dims[0].empty()) return -1;
  auto product = [](const nlohmann::json& shape) -> int64_t {
    int64_t n = 1;
    for (const auto& d : shape) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) return -1;
      n *= d.get<int64_t>();
    }
    return n;
  };
  const auto& first = dims[0];
  if (!first[0].is_array()) return product(first);
  int64_t total = 0;
  for (const auto& shape : first) {
    const int64_t n = shape.is_array() ? product(shape) : -1;
    if (n < 0) return -1;
    total += n;
  }
  return total;
}

std::string firstInputType(const nlohmann::json& args) {
  auto it = args.find("Input type");
  if (it == args.end() || !it->is_array() || it->empty() || !(*it)[0].is_string()) return {};
  return (*it)[0].get<std::string>();
}

}  // namespace

std::optional<int> dtypeBytes(std::string_view dtype) {
  std::string s;
  for (char c : dtype) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s.starts_with("c10::")) s = s.substr(5);
  if (s.starts_with("torch.")) s = s.substr(6);
  if (s == "double" || s == "float64" || s == "long" || s == "int64" || s == "long int" || s == "complexfloat")
    return 8;
  if (s == "float" || s == "float32" || s == "int" || s == "int32" || s == "unsigned int" || s == "uint32") return 4;
  if (s == "half" || s == "float16" || s == "bfloat16" || s == "short" || s == "int16" || s == "uint16") return 2;
  if (s == "char" || s == "signed char" || s == "unsigned char" || s == "int8" || s == "uint8" || s == "byte" ||
      s == "bool" || s.starts_with("float8"))
    return 1;
  if (s == "complexdouble") return 16;
  return std::nullopt;
}

void readCollectiveMetadata(const Trace& trace, EventRef op, CollectiveEvent& c) {
  const std::string_view op_name = trace.name(op);
  if (auto colon = op_name.find(':'); colon != std::string_view::npos) {
    // "nccl:all_reduce", "gloo:broadcast", "c10d::allreduce_"
    CollectiveKind k = collectiveKindFromText(op_name.substr(colon + 1));
    if (k != CollectiveKind::Other) c.kind = k;
  }
  const ArgsRef ref = trace.tracks[op.track].args[op.index];
  if (ref.length == 0) return;
  const auto args = nlohmann::json::parse(trace.argsJson(ref), nullptr, /*allow_exceptions=*/false);
  if (!args.is_object()) return;

  if (std::string name = stringField(args, "Collective name"); !name.empty()) {
    CollectiveKind k = collectiveKindFromText(name);
    if (k != CollectiveKind::Other) c.kind = k;
  }
  if (std::string pg = stringField(args, "Process Group Name"); !pg.empty()) c.group = "pg " + pg;
  if (auto n = intField(args, "Group size"); n && *n > 0) c.group_size = static_cast<int>(*n);

  const std::string dtype = stringField(args, "dtype");
  const auto element = dtypeBytes(dtype.empty() ? firstInputType(args) : dtype);
  if (!element) return;
  if (auto in = intField(args, "In msg nelems"); in && *in >= 0) {
    c.in_bytes = *in * *element;
    if (auto out = intField(args, "Out msg nelems"); out && *out >= 0) c.out_bytes = *out * *element;
    return;
  }
  if (auto dims = args.find("Input Dims"); dims != args.end()) {
    if (const int64_t n = firstInputElements(*dims); n >= 0) c.in_bytes = n * *element;
  }
}

}  // namespace fuselab
