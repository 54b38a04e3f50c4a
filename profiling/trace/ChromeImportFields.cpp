// Reading one traceEvents element's fields (and the top-level fields): the
// tokens kept, validation of everything else, args, nesting limits.
#include <cstring>
#include <string>

#include "profiling/trace/ChromeTraceImporter.h"
#include "profiling/trace/DecimalTime.h"

namespace fuselab::chrome_import {

namespace {

// Nesting deeper than this inside one event is refused (the validator recurses).
constexpr int kMaxNesting = 256;

std::string_view trimRight(std::string_view s) {
  while (!s.empty() && isJsonSpace(s.back())) s.remove_suffix(1);
  return s;
}

void resetArgsFields(EventFields& f) {
  f.args_begin = f.args_end = 0;
  f.correlation = f.external_id = f.device = f.stream = -1;
  f.meta_sort_index.reset();
  f.meta_name = Token{};
  f.meta_labels = Token{};
}

// A key's raw text is followed by its closing quote; compare without copying.
bool keyIs(const char* raw, std::string_view target) {
  return std::memcmp(raw, target.data(), target.size()) == 0 && raw[target.size()] == '"';
}
bool keyHasEscape(const char* raw) {
  for (const char* p = raw; *p != '"'; ++p)
    if (*p == '\\') return true;
  return false;
}

}  // namespace

std::string_view typeName(json_type t) {
  switch (t) {
    case json_type::array: return "an array";
    case json_type::object: return "an object";
    case json_type::number: return "a number";
    case json_type::string: return "a string";
    case json_type::boolean: return "a boolean";
    case json_type::null: return "null";
  }
  return "a value";
}

Token Importer::readToken(od::value v, json_type t) {
  Token tok;
  tok.present = true;
  tok.type = t;
  if (t == json_type::string) {
    std::string_view raw = trimRight(v.raw_json_token());
    if (raw.find('\\') == std::string_view::npos && raw.size() >= 2) {
      tok.text = raw.substr(1, raw.size() - 2);
      // Consume it so the iterator moves on.
      simdjson::ondemand::raw_json_string ignored = v.get_raw_json_string();
      (void)ignored;
    } else {
      tok.text = v.get_string();
    }
  } else if (t == json_type::number) {
    tok.text = trimRight(v.raw_json_token());
    double ignored = v.get_double();  // validates the token
    (void)ignored;
  }
  return tok;
}

void Importer::tooDeep(od::value v, const Window& w) {
  size_t off = w.fileOffset(v.raw_json_token().data());
  std::string at = saw_events_array_ && !events_array_done_
                       ? "traceEvents[" + std::to_string(event_index_) + "] (" + where(off) + ")"
                       : where(off);
  throw SemanticError{at + ": nesting deeper than " + std::to_string(kMaxNesting) + " levels", off};
}

void Importer::validate(od::value& v, const Window& w, int depth) {
  json_type t = v.type();
  switch (t) {
    case json_type::object: {
      if (depth >= kMaxNesting) tooDeep(v, w);
      for (auto field_result : v.get_object()) {
        od::field field;
    if (auto e = std::move(field_result).get(field)) throw simdjson::simdjson_error(e);
        if (keyHasEscape(field.key().raw())) (void)std::string_view(field.unescaped_key());
        validate(field.value(), w, depth + 1);
      }
      break;
    }
    case json_type::array: {
      if (depth >= kMaxNesting) tooDeep(v, w);
      for (auto element : v.get_array()) validate(element.value(), w, depth + 1);
      break;
    }
    case json_type::string: {
      std::string_view raw = v.raw_json_token();
      if (raw.find('\\') != std::string_view::npos) {
        std::string_view s = v.get_string();
        (void)s;
      } else {
        simdjson::ondemand::raw_json_string s = v.get_raw_json_string();
        (void)s;
      }
      break;
    }
    case json_type::number: {
      double d = v.get_double();
      (void)d;
      break;
    }
    case json_type::boolean: {
      bool b = v.get_bool();
      (void)b;
      break;
    }
    case json_type::null: {
      bool is_null = v.is_null();
      if (!is_null) throw simdjson::simdjson_error(simdjson::N_ATOM_ERROR);
      break;
    }
  }
}

void Importer::readArgs(od::value v, const Window& w, EventFields& f) {
  const char* begin = v.raw_json_token().data();
  od::object obj = v.get_object();
  for (auto field_result : obj) {
    od::field field;
    if (auto e = std::move(field_result).get(field)) throw simdjson::simdjson_error(e);
    const char* k = field.key().raw();
    od::value value = field.value();
    int64_t* target = nullptr;
    switch (k[0]) {
      case 'c': if (keyIs(k, "correlation")) target = &f.correlation; break;
      case 'E': if (keyIs(k, "External id")) target = &f.external_id; break;
      case 'd': if (keyIs(k, "device")) target = &f.device; break;
      case 's':
        if (keyIs(k, "stream")) {
          target = &f.stream;
        } else if (keyIs(k, "sort_index")) {
          int64_t x;
          if (value.type() == json_type::number && !value.get_int64().get(x)) {
            f.meta_sort_index = x;
            continue;
          }
        }
        break;
      case 'n':
        if (keyIs(k, "name") && value.type() == json_type::string) {
          f.meta_name = readToken(value, json_type::string);
          continue;
        }
        break;
      case 'l':
        if (keyIs(k, "labels") && value.type() == json_type::string) {
          f.meta_labels = readToken(value, json_type::string);
          continue;
        }
        break;
      default: break;
    }
    if (target && value.type() == json_type::number) {
      int64_t x;
      if (!value.get_int64().get(x)) {
        *target = x;
        continue;
      }
    }
    if (keyHasEscape(k)) (void)std::string_view(field.unescaped_key());
    validate(value, w, 2);
  }
  // The iterator now sits on the structural character after the closing brace.
  const char* after = nullptr;
  if (v.current_location().get(after)) after = w.text + w.text_len;
  const char* close = after;
  while (close > begin && *(close - 1) != '}') --close;
  f.args_begin = w.fileOffset(begin);
  f.args_end = w.fileOffset(close);
}

// `f` is freshly constructed by the caller (resetting it again cost a
// few percent of the reader thread).
void Importer::readEvent(od::value v, const Window& w, EventFields& f, size_t index) {
  f.index = index;
  const char* begin = v.raw_json_token().data();
  f.begin = w.fileOffset(begin);
  json_type type = v.type();
  if (type != json_type::object) {
    validate(v, w, 1);
    eventError(f, "is " + std::string(typeName(type)) + ", expected an object");
  }
  od::object obj = v.get_object();
  for (auto field_result : obj) {
    od::field field;
    if (auto e = std::move(field_result).get(field)) throw simdjson::simdjson_error(e);
    const char* k = field.key().raw();
    od::value value = field.value();
    Token* slot = nullptr;
    switch (k[0]) {
      case 'p':
        if (keyIs(k, "ph")) slot = &f.ph;
        else if (keyIs(k, "pid")) slot = &f.pid;
        break;
      case 't':
        if (keyIs(k, "ts")) slot = &f.ts;
        else if (keyIs(k, "tid")) slot = &f.tid;
        break;
      case 'd': if (keyIs(k, "dur")) slot = &f.dur; break;
      case 'n': if (keyIs(k, "name")) slot = &f.name; break;
      case 'c': if (keyIs(k, "cat")) slot = &f.cat; break;
      case 'i':
        if (keyIs(k, "id")) slot = &f.id;
        else if (keyIs(k, "id2")) f.has_id2 = true;
        break;
      case 'b': if (keyIs(k, "bp")) slot = &f.bp; break;
      case 'a':
        if (keyIs(k, "args")) {
          // A repeated key counts as its last occurrence, as in other JSON
          // readers (Python's json): forget what an earlier "args" gave.
          resetArgsFields(f);
          json_type t = value.type();
          f.args.present = true;
          f.args.type = t;
          if (t == json_type::object) {
            readArgs(value, w, f);
          } else {
            validate(value, w, 1);
          }
          continue;
        }
        break;
      default: break;
    }
    if (slot) {
      json_type t = value.type();
      if (t == json_type::string || t == json_type::number) {
        *slot = readToken(value, t);
      } else {
        slot->present = true;
        slot->type = t;
        validate(value, w, 1);
      }
      continue;
    }
    if (!f.has_extra) {
      f.has_extra = true;
      f.extra_key = field.unescaped_key();
    } else if (keyHasEscape(k)) {
      (void)std::string_view(field.unescaped_key());
    }
    validate(value, w, 1);
  }
  const char* after = nullptr;
  if (v.current_location().get(after)) after = w.text + w.text_len;
  const char* close = after;
  while (close > begin && *(close - 1) != '}') --close;
  f.close = close;
  f.end = w.fileOffset(close);
}

void Importer::readTopLevelField(std::string_view key, od::value v, const Window& w) {
  const char* p = v.raw_json_token().data();
  size_t off = w.fileOffset(p);
  json_type t = v.type();
  auto fieldError = [&](const std::string& what) {
    throw SemanticError{where(off) + ": \"" + std::string(key) + "\" " + what, off};
  };
  // Raw text of the value (validated first).
  auto rawValue = [&]() -> std::string {
    if (t == json_type::object || t == json_type::array) {
      const char* begin = p;
      validate(v, w, 1);
      const char* after = nullptr;
      if (v.current_location().get(after)) after = w.text + w.text_len;
      const char* close = after;
      char want = t == json_type::object ? '}' : ']';
      while (close > begin && *(close - 1) != want) --close;
      return std::string(begin, close);
    }
    std::string token(trimRight(v.raw_json_token()));
    validate(v, w, 1);
    return token;
  };
  if (key == "schemaVersion") {
    int64_t x;
    if (t != json_type::number || v.get_int64().get(x)) fieldError("must be an integer");
    meta_.schema_version = static_cast<int>(x);
  } else if (key == "baseTimeNanoseconds") {
    if (t != json_type::number) fieldError("is " + std::string(typeName(t)) + ", expected a number");
    std::string_view tok = trimRight(v.raw_json_token());
    int64_t ns;
    DecimalParse r = parseScaledDecimal(tok, 0, ns);
    if (r == DecimalParse::Negative) fieldError("is negative");
    if (r == DecimalParse::OutOfRange) fieldError("is out of range: " + std::string(tok));
    if (r != DecimalParse::Ok) fieldError("is not a usable time in nanoseconds: " + std::string(tok));
    double ignored = v.get_double();
    (void)ignored;
    base_ns_ = ns;
  } else if (key == "traceName") {
    if (t != json_type::string) fieldError("is " + std::string(typeName(t)) + ", expected a string");
    meta_.trace_name = std::string(v.get_string().value());
  } else if (key == "deviceProperties") {
    if (t != json_type::array) fieldError("is " + std::string(typeName(t)) + ", expected an array");
    meta_.devices.clear();
    for (auto element : v.get_array()) {
      od::value d = element.value();
      const char* begin = d.raw_json_token().data();
      if (d.type() != json_type::object) fieldError("has an element that is not an object");
      DeviceProperties props;
      for (auto field_result : d.get_object()) {
        od::field field;
    if (auto e = std::move(field_result).get(field)) throw simdjson::simdjson_error(e);
        const char* k = field.key().raw();
        od::value value = field.value();
        if (keyIs(k, "id") && value.type() == json_type::number) {
          int64_t x;
          if (!value.get_int64().get(x)) {
            props.id = static_cast<int>(x);
            continue;
          }
        }
        if (keyIs(k, "name") && value.type() == json_type::string) {
          props.name = std::string(value.get_string().value());
          continue;
        }
        validate(value, w, 2);
      }
      const char* after = nullptr;
      if (d.current_location().get(after)) after = w.text + w.text_len;
      const char* close = after;
      while (close > begin && *(close - 1) != '}') --close;
      props.json.assign(begin, close);
      meta_.devices.push_back(std::move(props));
    }
  } else {
    std::string raw = rawValue();
    meta_.extra_fields.emplace_back(std::string(key), std::move(raw));
  }
}

}  // namespace fuselab::chrome_import
