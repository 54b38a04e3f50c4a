#include "profiling/trace/TraceArgs.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace fuselab {

namespace {

std::string_view argsOf(const Trace& trace, EventRef e) {
  if (e.track >= trace.tracks.size()) return {};
  const Track& t = trace.tracks[e.track];
  if (e.index >= t.args.size()) return {};
  return trace.argsJson(t.args[e.index]);
}

// simdjson needs readable padding after the text; args usually sit in the
// middle of a large buffer but may be its last bytes, so copy them.
struct PaddedCopy {
  simdjson::padded_string text;
  explicit PaddedCopy(std::string_view s) : text(s) {}
};

std::optional<int64_t> integerOf(simdjson::ondemand::value v) {
  simdjson::ondemand::json_type t;
  if (v.type().get(t) || t != simdjson::ondemand::json_type::number) return std::nullopt;
  int64_t i;
  if (!v.get_int64().get(i)) return i;
  double d;
  // 7.0 is an integer written as a float; 7.5 is not.
  if (!v.get_double().get(d) && std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.2e18)
    return static_cast<int64_t>(d);
  return std::nullopt;
}

template <typename Fn>
bool withField(std::string_view args_json, std::string_view key, Fn&& fn) {
  if (args_json.empty()) return false;
  PaddedCopy copy(args_json);
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  if (parser.iterate(copy.text).get(doc)) return false;
  simdjson::ondemand::object obj;
  if (doc.get_object().get(obj)) return false;
  for (auto field : obj) {
    std::string_view k;
    if (field.unescaped_key().get(k)) return false;
    if (k != key) continue;
    simdjson::ondemand::value v;
    if (field.value().get(v)) return false;
    fn(v);
    return true;
  }
  return false;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> argsForDisplay(std::string_view args_json) {
  std::vector<std::pair<std::string, std::string>> out;
  if (args_json.empty()) return out;
  auto j = nlohmann::ordered_json::parse(args_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    constexpr size_t kShown = 200;
    std::string shown(args_json.substr(0, kShown));
    if (args_json.size() > kShown) shown += "...";
    out.emplace_back("(malformed args)", std::move(shown));
    return out;
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    const auto& v = it.value();
    out.emplace_back(it.key(), v.is_string() ? v.get<std::string>()
                                             : v.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> argsForDisplay(const Trace& trace, EventRef event) {
  return argsForDisplay(argsOf(trace, event));
}

std::optional<int64_t> argInt(std::string_view args_json, std::string_view key) {
  std::optional<int64_t> out;
  withField(args_json, key, [&](simdjson::ondemand::value v) { out = integerOf(v); });
  return out;
}

std::optional<int64_t> argInt(const Trace& trace, EventRef event, std::string_view key) {
  return argInt(argsOf(trace, event), key);
}

std::optional<double> argNumber(std::string_view args_json, std::string_view key) {
  std::optional<double> out;
  withField(args_json, key, [&](simdjson::ondemand::value v) {
    double d = 0;
    if (!v.get_double().get(d)) out = d;
  });
  return out;
}

std::optional<double> argNumber(const Trace& trace, EventRef event, std::string_view key) {
  return argNumber(argsOf(trace, event), key);
}

std::vector<int64_t> argIntArray(std::string_view args_json, std::string_view key) {
  std::vector<int64_t> out;
  withField(args_json, key, [&](simdjson::ondemand::value v) {
    simdjson::ondemand::array arr;
    if (v.get_array().get(arr)) return;
    for (auto element : arr) {
      simdjson::ondemand::value ev;
      std::optional<int64_t> i;
      if (element.get(ev) || !(i = integerOf(ev))) {
        out.clear();
        return;
      }
      out.push_back(*i);
    }
  });
  return out;
}

std::vector<int64_t> argIntArray(const Trace& trace, EventRef event, std::string_view key) {
  return argIntArray(argsOf(trace, event), key);
}

struct ArgIntReader::Parser {
  simdjson::ondemand::parser parser;
  std::string text;  // the args being read, with simdjson's padding after them
};

ArgIntReader::ArgIntReader(std::vector<std::string> keys)
    : parser_(std::make_unique<Parser>()), keys_(std::move(keys)), values_(keys_.size()) {}

ArgIntReader::~ArgIntReader() = default;

const std::vector<ArgInt>& ArgIntReader::read(const Trace& trace, EventRef event) {
  return read(argsOf(trace, event));
}

const std::vector<ArgInt>& ArgIntReader::read(std::string_view args_json) {
  std::fill(values_.begin(), values_.end(), ArgInt{});
  if (args_json.empty()) return values_;
  auto malformed = [&]() -> const std::vector<ArgInt>& {
    std::fill(values_.begin(), values_.end(), ArgInt{});
    return values_;
  };
  std::string& text = parser_->text;
  text.assign(args_json);
  text.reserve(args_json.size() + simdjson::SIMDJSON_PADDING);
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  if (parser_->parser.iterate(simdjson::padded_string_view(text.data(), text.size(), text.capacity())).get(doc) ||
      doc.get_object().get(obj))
    return malformed();
  size_t found = 0;
  for (auto field : obj) {
    std::string_view k;
    if (field.unescaped_key().get(k)) return malformed();
    const auto key = std::find(keys_.begin(), keys_.end(), k);
    if (key == keys_.end() || values_[size_t(key - keys_.begin())].kind != ArgInt::Kind::Absent) continue;
    ArgInt& out = values_[size_t(key - keys_.begin())];
    simdjson::ondemand::value v;
    simdjson::ondemand::json_type type;
    if (field.value().get(v) || v.type().get(type)) return malformed();
    bool is_null = false;
    if (type == simdjson::ondemand::json_type::null && (v.is_null().get(is_null) || !is_null)) return malformed();
    if (is_null) out.kind = ArgInt::Kind::Null;
    else if (const auto i = integerOf(v)) out = {ArgInt::Kind::Integer, *i};
    else out.kind = ArgInt::Kind::Other;
    if (++found == keys_.size()) break;  // the rest is not read, as argInt does not
  }
  return values_;
}

}  // namespace fuselab
