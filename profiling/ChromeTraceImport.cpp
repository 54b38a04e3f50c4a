#include "profiling/ChromeTraceImport.h"

#include <simdjson.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "profiling/DecimalTime.h"
#include "profiling/Gzip.h"
#include "profiling/HugePages.h"

namespace fuselab {

namespace {

namespace od = simdjson::ondemand;
using od::json_type;

// Nesting deeper than this inside one event is refused (the validator recurses).
constexpr int kMaxNesting = 256;

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

// Offset of the first byte that breaks UTF-8 (size() if none). Only used to
// say where, after simdjson has found that the text is not valid UTF-8.
size_t firstInvalidUtf8(std::string_view s) {
  auto u = [&](size_t i) { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0u; };
  auto cont = [&](size_t i, unsigned lo = 0x80, unsigned hi = 0xBF) { return u(i) >= lo && u(i) <= hi && i < s.size(); };
  size_t i = 0;
  while (i < s.size()) {
    unsigned c = u(i);
    size_t len = 0;
    if (c < 0x80) len = 1;
    else if (c >= 0xC2 && c <= 0xDF && cont(i + 1)) len = 2;
    else if (c == 0xE0 && cont(i + 1, 0xA0) && cont(i + 2)) len = 3;
    else if (((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) && cont(i + 1) && cont(i + 2)) len = 3;
    else if (c == 0xED && cont(i + 1, 0x80, 0x9F) && cont(i + 2)) len = 3;
    else if (c == 0xF0 && cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3)) len = 4;
    else if (c >= 0xF1 && c <= 0xF3 && cont(i + 1) && cont(i + 2) && cont(i + 3)) len = 4;
    else if (c == 0xF4 && cont(i + 1, 0x80, 0x8F) && cont(i + 2) && cont(i + 3)) len = 4;
    if (len == 0) return i;
    i += len;
  }
  return s.size();
}

bool isJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

std::string_view trimRight(std::string_view s) {
  while (!s.empty() && isJsonSpace(s.back())) s.remove_suffix(1);
  return s;
}

// Thrown for problems that are real whichever way the file was cut into
// windows (everything except simdjson's own syntax errors).
struct SemanticError {
  std::string message;
  size_t offset;
};

// One kept field value: its raw token and JSON type.
struct Token {
  std::string_view text;  // strings: the unescaped content; others: the raw token
  json_type type = json_type::null;
  bool present = false;
};

// What the reader keeps of one traceEvents element. Views point into the
// window text or the parser's string buffer: valid until the next element.
struct EventFields {
  Token ph, name, cat, pid, tid, ts, dur, id, bp, args;
  size_t begin = 0, end = 0;  // file offsets of the object text
  size_t args_begin = 0, args_end = 0;
  // From args (top level only).
  int64_t correlation = -1, external_id = -1, device = -1, stream = -1;
  std::optional<int64_t> meta_sort_index;
  Token meta_name, meta_labels;
  const char* close = nullptr;  // one past the closing brace, in the window text
  std::string_view extra_key;  // first field fuselab does not keep (for X events)
  bool has_extra = false;
  bool has_id2 = false;
};

void resetArgsFields(EventFields& f) {
  f.args_begin = f.args_end = 0;
  f.correlation = f.external_id = f.device = f.stream = -1;
  f.meta_sort_index.reset();
  f.meta_name = Token{};
  f.meta_labels = Token{};
}

// Maps pointers in the current window's text back to offsets in the file.
struct Window {
  const char* text = nullptr;
  size_t text_len = 0;
  size_t prefix_len = 0;   // synthetic bytes before the copied file bytes
  size_t file_begin = 0;   // file offset of the first copied byte
  size_t file_end = 0;     // file offset one past the last copied byte
  bool final = false;      // reaches the end of the file (no synthetic suffix)
  bool continuation = false;  // starts with a dummy element

  const char* copiedEnd() const { return text + prefix_len + (file_end - file_begin); }

  size_t fileOffset(const char* p) const {
    if (p < text + prefix_len) return file_begin;
    size_t off = file_begin + size_t(p - text - prefix_len);
    return std::min(off, file_end);
  }
};

struct PendingBegin {  // a "B" waiting for its "E"
  Trace::NewEvent ev;
  size_t begin, end;
  size_t index;
  int64_t device, stream;  // from the "B"'s args
};

// A GPU track's device and stream: the smallest that its GPU work's args name,
// so that they do not depend on the order of the events in the file (an export
// writes them sorted by time, and a re-import must find the same).
void notePlacement(Track& t, Category category, int64_t device, int64_t stream) {
  if (!isGpuWork(category)) return;
  if (device >= 0 && (t.device < 0 || device < t.device)) t.device = static_cast<int>(device);
  if (stream >= 0 && (t.stream < 0 || stream < t.stream)) t.stream = stream;
}

struct FlowEnd {
  char phase;           // 's' or 'f'
  bool enclosing;       // binding point: enclosing slice (else next slice)
  bool name_is_ac2g;
  uint32_t cat_id, name_id;
  uint64_t id;
  uint32_t pid_id, tid_id;  // the thread it binds on (looked up at the end)
  int64_t ts;               // relative to baseTimeNanoseconds
  size_t begin, end;        // raw text, in case it stays unpaired
};

struct MetaRecord {
  enum Kind { ProcessName, ProcessLabels, ProcessSort, ThreadName, ThreadSort } kind;
  uint32_t pid_id, tid_id;
  uint32_t name_id = 0;
  uint32_t text_id = 0;
  int64_t number = 0;
  size_t begin, end;
  int64_t ts;
};

struct RawPending {
  size_t begin, end;
  int64_t ts;  // relative to baseTimeNanoseconds
  uint32_t name_id;
  char phase;
};

class Importer {
 public:
  Importer(std::string buffer, std::string source, const ChromeImportOptions& options)
      : source_(std::move(source)), window_bytes_(std::max<size_t>(options.window_bytes, 256)) {
    if (buffer.capacity() < buffer.size() + simdjson::SIMDJSON_PADDING) buffer.reserve(buffer.size() + simdjson::SIMDJSON_PADDING);
    buf_ = std::make_shared<std::string>(std::move(buffer));
  }

  Trace run();

 private:
  // --- windows -------------------------------------------------------------
  enum class Form { Object, Array };
  enum class Outcome { Done, Continue, Grow };
  Outcome parseWindow(size_t start, bool head);
  bool prepareWindow(size_t start, bool head, size_t limit, Window& w, int attempt);
  void parseTopLevelObject(od::document& doc, const Window& w, bool head, Outcome& outcome);
  struct WindowState {
    TraceMetadata meta;
    std::optional<int64_t> base_ns;
    bool saw_events_array, events_array_done;
    size_t resume_at;
  };
  WindowState saveState() const { return {trace_.meta, base_ns_, saw_events_array_, events_array_done_, resume_at_}; }
  void restoreState(WindowState s) {
    trace_.meta = std::move(s.meta);
    base_ns_ = s.base_ns;
    saw_events_array_ = s.saw_events_array;
    events_array_done_ = s.events_array_done;
    resume_at_ = s.resume_at;
  }
  void parseEvents(od::array arr, const Window& w, Outcome& outcome);
  [[noreturn]] void syntaxError(simdjson::error_code code, const Window& w, const char* where_ptr, const std::string& context);
  [[noreturn]] void stage1Error(simdjson::error_code code, const Window& w);

  // --- reading ---------------------------------------------------------------
  void readEvent(od::value v, const Window& w, EventFields& f);
  void readArgs(od::value v, const Window& w, EventFields& f);
  Token readToken(od::value v, json_type t);
  void validate(od::value v, const Window& w, int depth);
  [[noreturn]] void tooDeep(od::value v, const Window& w);
  void readTopLevelField(std::string_view key, od::value v, const Window& w);

  // --- interpreting ------------------------------------------------------------
  void commitEvent(const EventFields& f);
  int64_t timeField(const EventFields& f, const Token& t, const char* name, bool required);
  uint32_t trackOf(const EventFields& f);
  std::pair<uint32_t, uint32_t> tokenIds(const EventFields& f);
  [[noreturn]] void eventError(const EventFields& f, const std::string& what) const;
  void finish();
  void bindFlows(int64_t base);
  std::optional<uint32_t> enclosingEvent(const Track& t, int64_t ts, int64_t longest) const;
  std::optional<uint32_t> nextEvent(const Track& t, int64_t ts) const;
  Category categoryOf(uint32_t cat_id);
  std::string where(size_t offset) const;

  std::string source_;
  size_t window_bytes_;
  std::shared_ptr<std::string> buf_;
  size_t n_ = 0;
  Form form_ = Form::Object;

  od::parser parser_;
  std::string window_text_;

  Trace trace_;
  size_t event_index_ = 0;     // index in traceEvents of the next element
  size_t resume_at_ = 0;       // file offset after the last committed element
  bool saw_events_array_ = false;
  bool events_array_done_ = false;

  // Top-level fields.
  std::optional<int64_t> base_ns_;

  // Event state.
  std::vector<int8_t> category_cache_;  // by string id; -1 unknown
  std::string last_pid_store_, last_tid_store_;
  std::pair<uint32_t, uint32_t> last_ids_;
  bool have_last_ids_ = false;
  uint64_t last_track_key_ = 0;
  uint32_t last_track_ = UINT32_MAX;
  std::unordered_map<uint64_t, uint32_t> track_by_tokens_;  // (pid_id, tid_id) -> track
  std::unordered_map<uint32_t, std::vector<PendingBegin>> open_begins_;
  std::vector<FlowEnd> flow_ends_;
  std::vector<MetaRecord> meta_records_;
  std::vector<RawPending> raw_pending_;
  size_t unmatched_end_ = 0, unmatched_begin_ = 0, extra_field_events_ = 0, unsupported_flow_ids_ = 0;
  std::string extra_field_example_;
};

std::string Importer::where(size_t offset) const { return "byte " + std::to_string(offset); }

void Importer::eventError(const EventFields& f, const std::string& what) const {
  throw SemanticError{"traceEvents[" + std::to_string(event_index_) + "] (" + where(f.begin) + "): " + what, f.begin};
}

// ---------------------------------------------------------------------------
// Windows. A window is a slice of the file handed to simdjson as a complete
// document: the head window starts at byte 0; later windows start after the
// last committed event and get a synthetic prefix ("[0" or
// "{\"traceEvents\":[0", the 0 being a dummy element) so that the slice reads
// as the same document. A window that stops before the end of the file is cut
// at a newline or comma and closed with "]" / "]}"; whatever event the cut
// lands in fails to parse and is read again at the start of the next window.

bool Importer::prepareWindow(size_t start, bool head, size_t limit, Window& w, int attempt) {
  const std::string& b = *buf_;
  std::string_view prefix;
  if (!head) prefix = form_ == Form::Object ? std::string_view("{\"traceEvents\":[0") : std::string_view("[0");
  w = Window{};
  w.file_begin = start;
  w.prefix_len = prefix.size();
  w.continuation = !head;
  size_t end = n_;
  if (n_ - start > limit) {
    // Candidate cuts: newlines (never inside a string in valid JSON) or
    // commas, scanning back from the limit; `attempt` skips earlier failures.
    size_t lo = start + limit / 2, p = start + limit;
    int found = -1;
    while (p > lo) {
      --p;
      if (b[p] == '\n' || b[p] == ',') {
        if (++found == attempt) break;
      }
    }
    if (found != attempt || p <= lo) return false;
    end = p;
  }
  w.file_end = end;
  w.final = end == n_;
  if (head && w.final) {
    // The whole file: parse it in place (it carries simdjson's padding).
    w.text = b.data();
    w.text_len = n_;
    return true;
  }
  std::string_view suffix;
  if (!w.final) suffix = form_ == Form::Object ? std::string_view("]}") : std::string_view("]");
  size_t len = prefix.size() + (end - start) + suffix.size();
  if (window_text_.capacity() < len + simdjson::SIMDJSON_PADDING) {
    window_text_.clear();
    window_text_.shrink_to_fit();
    window_text_.reserve(len + simdjson::SIMDJSON_PADDING);
  }
  window_text_.assign(prefix);
  window_text_.append(b, start, end - start);
  window_text_.append(suffix);
  w.text = window_text_.data();
  w.text_len = len;
  return true;
}

Importer::Outcome Importer::parseWindow(size_t start, bool head) {
  Window w;
  od::document doc;
  simdjson::error_code err = simdjson::SUCCESS;
  for (int attempt = 0;; ++attempt) {
    if (!prepareWindow(start, head, attempt < 8 ? window_bytes_ : n_, w, attempt)) {
      // No usable cut: take the rest of the file.
      prepareWindow(start, head, n_, w, 0);
    }
    size_t capacity = (w.text == buf_->data()) ? buf_->capacity() : window_text_.capacity();
    err = parser_.iterate(simdjson::padded_string_view(w.text, w.text_len, capacity)).get(doc);
    if (!err) break;
    if (w.final) stage1Error(err, w);
    // A comma inside a string makes a bad cut; try an earlier one.
  }

  Outcome outcome = Outcome::Done;
  size_t committed_before = event_index_;
  try {
    if (form_ == Form::Object) {
      parseTopLevelObject(doc, w, head, outcome);
    } else {
      od::array arr;
      if (auto e = doc.get_array().get(arr)) syntaxError(e, w, nullptr, "the top-level array");
      parseEvents(arr, w, outcome);
      if (outcome == Outcome::Done && w.final) {
        const char* loc = nullptr;
        if (!doc.current_location().get(loc))
          throw SemanticError{where(w.fileOffset(loc)) + ": unexpected content after the traceEvents array", w.fileOffset(loc)};
      }
    }
  } catch (const simdjson::simdjson_error& e) {
    const char* loc = nullptr;
    if (doc.current_location().get(loc)) loc = nullptr;
    try {
      syntaxError(e.error(), w, loc, "");
    } catch (simdjson::error_code) {
      outcome = Outcome::Continue;  // cut short: read again from the last committed event
    }
  } catch (simdjson::error_code) {
    outcome = Outcome::Continue;
  }
  if (outcome == Outcome::Continue && event_index_ == committed_before) outcome = Outcome::Grow;
  return outcome;
}

void Importer::stage1Error(simdjson::error_code code, const Window& w) {
  const std::string& b = *buf_;
  size_t from = w.file_begin, to = w.file_end;
  if (code == simdjson::UTF8_ERROR) {
    size_t bad = from + firstInvalidUtf8(std::string_view(b).substr(from, to - from));
    throw TraceImportError(source_ + ": " + where(bad) + ": invalid UTF-8");
  }
  std::string what;
  switch (code) {
    case simdjson::UNCLOSED_STRING: what = "a string is never closed (the text ends inside a string)"; break;
    case simdjson::UNESCAPED_CHARS: what = "a string contains an unescaped control character"; break;
    case simdjson::EMPTY: what = "no JSON value"; break;
    case simdjson::CAPACITY: what = "the file is too large for the JSON parser"; break;
    case simdjson::MEMALLOC: what = "not enough memory to parse"; break;
    default: what = simdjson::error_message(code); break;
  }
  throw TraceImportError(source_ + ": bytes " + std::to_string(from) + "-" + std::to_string(to) + ": " + what);
}

void Importer::syntaxError(simdjson::error_code code, const Window& w, const char* where_ptr, const std::string& context) {
  // Errors in a window that was cut short are read again in the next one.
  if (!w.final) throw code;
  size_t offset = where_ptr ? w.fileOffset(where_ptr) : w.file_begin;
  std::string what = simdjson::error_message(code);
  if (!where_ptr && code == simdjson::INCOMPLETE_ARRAY_OR_OBJECT) {
    // simdjson checks the last character first: a truncated file (or text
    // after the top-level value) fails here.
    throw TraceImportError(source_ + ": " + where(w.file_end) + " (end of file): the JSON ends before " + context +
                           " is closed (truncated, or text after it?)");
  }
  if (code == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || code == simdjson::TAPE_ERROR) {
    what = code == simdjson::TAPE_ERROR ? "malformed JSON (a missing or extra comma, bracket, brace or key)"
                                        : "the JSON ends before an object or array is closed (truncated?)";
  } else if (code == simdjson::NUMBER_ERROR) {
    what = "malformed number";
  } else if (code == simdjson::T_ATOM_ERROR || code == simdjson::F_ATOM_ERROR || code == simdjson::N_ATOM_ERROR) {
    what = "malformed literal (true/false/null)";
  } else if (code == simdjson::STRING_ERROR) {
    what = "malformed string escape";
  }
  std::string at = events_array_done_ || !saw_events_array_ ? where(offset)
                                                            : "traceEvents[" + std::to_string(event_index_) + "] (" + where(offset) + ")";
  throw TraceImportError(source_ + ": " + at + ": " + what + (context.empty() ? "" : " in " + context));
}

void Importer::parseTopLevelObject(od::document& doc, const Window& w, bool head, Outcome& outcome) {
  od::object root;
  if (auto e = doc.get_object().get(root)) syntaxError(e, w, nullptr, "the top-level object");
  for (auto field_result : root) {
    od::field field;
    if (auto e = std::move(field_result).get(field)) throw simdjson::simdjson_error(e);
    std::string_view key = field.unescaped_key();
    od::value value = field.value();
    if (key == "traceEvents") {
      if (saw_events_array_ && (head || events_array_done_)) {
        const char* p = value.raw_json_token().data();
        throw SemanticError{where(w.fileOffset(p)) + ": a second \"traceEvents\" field", w.fileOffset(p)};
      }
      json_type t = value.type();
      if (t != json_type::array) {
        const char* p = value.raw_json_token().data();
        throw SemanticError{where(w.fileOffset(p)) + ": \"traceEvents\" is " + std::string(typeName(t)) + ", expected an array", w.fileOffset(p)};
      }
      if (head) resume_at_ = w.fileOffset(value.raw_json_token().data()) + 1;
      saw_events_array_ = true;
      parseEvents(value.get_array(), w, outcome);
      if (outcome != Outcome::Done) return;  // cut short: the next window goes on
      events_array_done_ = true;
      continue;
    }
    readTopLevelField(key, value, w);
  }
  if (!w.final) {
    // The synthetic "]}" closed the document before the events began.
    outcome = Outcome::Grow;
    return;
  }
  const char* loc = nullptr;
  if (!doc.current_location().get(loc))
    throw SemanticError{where(w.fileOffset(loc)) + ": unexpected content after the top-level object", w.fileOffset(loc)};
  if (!saw_events_array_) throw SemanticError{"the top-level object has no \"traceEvents\" array", 0};
  outcome = Outcome::Done;
}

void Importer::parseEvents(od::array arr, const Window& w, Outcome& outcome) {
  bool dummy = w.continuation;
  EventFields f;
  for (auto element : arr) {
    od::value v;
    auto e = element.get(v);
    if (e) {
      if (!w.final) {
        outcome = Outcome::Continue;
        return;
      }
      throw simdjson::simdjson_error(e);  // located by parseWindow
    }
    if (dummy) {
      dummy = false;
      int64_t ignored;
      if (v.get_int64().get(ignored)) {
        outcome = Outcome::Continue;
        return;
      }
      continue;
    }
    try {
      readEvent(v, w, f);
    } catch (const simdjson::simdjson_error& err) {
      if (!w.final) {
        outcome = Outcome::Continue;
        return;
      }
      throw;
    }
    if (!w.final && f.close > w.copiedEnd()) {
      // The synthetic "]}" closed this event (the cut fell inside one of
      // its arrays): read it again in the next window.
      outcome = Outcome::Continue;
      return;
    }
    const char* loc = nullptr;
    if (!v.current_location().get(loc)) {
      // The next structural character: ',' or the closing ']'.
      if (!w.final && w.fileOffset(loc) >= w.file_end) {
        // The synthetic ']' follows: this event ended right at the cut.
        resume_at_ = w.file_end;
      } else {
        resume_at_ = w.fileOffset(loc);
      }
    }
    commitEvent(f);
    ++event_index_;
  }
  // The array closed: for a cut window that was the synthetic ']'.
  outcome = w.final ? Outcome::Done : Outcome::Continue;
}

// ---------------------------------------------------------------------------
// Reading one element.

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

namespace {
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

void Importer::tooDeep(od::value v, const Window& w) {
  size_t off = w.fileOffset(v.raw_json_token().data());
  std::string at = saw_events_array_ && !events_array_done_
                       ? "traceEvents[" + std::to_string(event_index_) + "] (" + where(off) + ")"
                       : where(off);
  throw SemanticError{at + ": nesting deeper than " + std::to_string(kMaxNesting) + " levels", off};
}

void Importer::validate(od::value v, const Window& w, int depth) {
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

void Importer::readEvent(od::value v, const Window& w, EventFields& f) {
  f = EventFields{};
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
    trace_.meta.schema_version = static_cast<int>(x);
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
    trace_.meta.trace_name = std::string(v.get_string().value());
  } else if (key == "deviceProperties") {
    if (t != json_type::array) fieldError("is " + std::string(typeName(t)) + ", expected an array");
    trace_.meta.devices.clear();
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
      trace_.meta.devices.push_back(std::move(props));
    }
  } else {
    std::string raw = rawValue();
    trace_.meta.extra_fields.emplace_back(std::string(key), std::move(raw));
  }
}

// ---------------------------------------------------------------------------
// Interpreting one element.

Category Importer::categoryOf(uint32_t cat_id) {
  if (cat_id >= category_cache_.size()) category_cache_.resize(cat_id + 64, -1);
  int8_t& c = category_cache_[cat_id];
  if (c < 0) c = static_cast<int8_t>(categoryFromName(trace_.strings.get(cat_id)));
  return static_cast<Category>(c);
}

int64_t Importer::timeField(const EventFields& f, const Token& t, const char* name, bool required) {
  if (!t.present) {
    if (required) eventError(f, std::string("has no '") + name + "'");
    return 0;
  }
  if (t.type != json_type::number)
    eventError(f, std::string("'") + name + "' is " + std::string(typeName(t.type)) + ", expected a number");
  int64_t ns = 0;
  switch (parseScaledDecimal(t.text, 3, ns)) {
    case DecimalParse::Ok: return ns;
    case DecimalParse::Negative: eventError(f, std::string("'") + name + "' is negative (" + std::string(t.text) + ")");
    case DecimalParse::OutOfRange:
      eventError(f, std::string("'") + name + "' is out of range (" + std::string(t.text) + " us)");
    case DecimalParse::NotANumber: eventError(f, std::string("'") + name + "' is not a number");
  }
  return 0;
}

std::pair<uint32_t, uint32_t> Importer::tokenIds(const EventFields& f) {
  auto checkId = [&](const Token& t, const char* name) {
    if (!t.present) eventError(f, std::string("has no '") + name + "'");
    if (t.type != json_type::number && t.type != json_type::string)
      eventError(f, std::string("'") + name + "' is " + std::string(typeName(t.type)) + ", expected a number or a string");
  };
  checkId(f.pid, "pid");
  checkId(f.tid, "tid");
  // The token text as it appears in JSON: numbers raw, strings quoted.
  auto tokenText = [](const Token& t, std::string& store) -> std::string_view {
    if (t.type == json_type::number) return t.text;
    store.assign(1, '"');
    for (char c : t.text) {
      if (c == '"' || c == '\\') store.push_back('\\');
      if (static_cast<unsigned char>(c) < 0x20) {
        char esc[8];
        std::snprintf(esc, sizeof(esc), "\\u%04x", c);
        store.append(esc);
        continue;
      }
      store.push_back(c);
    }
    store.push_back('"');
    return store;
  };
  std::string pid_store, tid_store;
  std::string_view pid = tokenText(f.pid, pid_store);
  std::string_view tid = tokenText(f.tid, tid_store);
  if (have_last_ids_ && pid == last_pid_store_ && tid == last_tid_store_) return last_ids_;
  last_ids_ = {trace_.strings.intern(pid), trace_.strings.intern(tid)};
  last_pid_store_.assign(pid);
  last_tid_store_.assign(tid);
  have_last_ids_ = true;
  return last_ids_;
}

uint32_t Importer::trackOf(const EventFields& f) {
  auto [pid_id, tid_id] = tokenIds(f);
  uint64_t key = (uint64_t(pid_id) << 32) | tid_id;
  if (last_track_ != UINT32_MAX && key == last_track_key_) return last_track_;
  uint32_t track;
  if (auto it = track_by_tokens_.find(key); it != track_by_tokens_.end()) {
    track = it->second;
  } else {
    track = trace_.trackFor(trace_.strings.get(pid_id), trace_.strings.get(tid_id));
    track_by_tokens_.emplace(key, track);
  }
  last_track_key_ = key;
  last_track_ = track;
  return track;
}

void Importer::commitEvent(const EventFields& f) {
  if (!f.ph.present) eventError(f, "has no 'ph' (phase)");
  if (f.ph.type != json_type::string) eventError(f, "'ph' is " + std::string(typeName(f.ph.type)) + ", expected a string");
  if (f.ph.text.empty()) eventError(f, "'ph' is empty");
  if (f.name.present && f.name.type != json_type::string)
    eventError(f, "'name' is " + std::string(typeName(f.name.type)) + ", expected a string");
  if (f.cat.present && f.cat.type != json_type::string)
    eventError(f, "'cat' is " + std::string(typeName(f.cat.type)) + ", expected a string");
  if (f.args.present && f.args.type != json_type::object)
    eventError(f, "'args' is " + std::string(typeName(f.args.type)) + ", expected an object");
  char ph = f.ph.text.size() == 1 ? f.ph.text[0] : '?';
  int64_t ts = timeField(f, f.ts, "ts", ph == 'X' || ph == 'B' || ph == 'E' || ph == 's' || ph == 'f');
  auto keepRaw = [&] {
    raw_pending_.push_back(RawPending{f.begin, f.end, ts, trace_.strings.intern(f.name.text), ph});
  };

  switch (ph) {
    case 'X':
    case 'B': {
      int64_t dur = ph == 'X' ? timeField(f, f.dur, "dur", true) : 0;
      if (ts > kMaxTimeNs - dur) eventError(f, "'ts' + 'dur' is out of range");
      uint32_t track = trackOf(f);
      Trace::NewEvent e;
      e.start_ns = ts;
      e.dur_ns = dur;
      e.name_id = trace_.strings.intern(f.name.text);
      e.cat_id = trace_.strings.intern(f.cat.text);
      e.category = categoryOf(e.cat_id);
      e.correlation = f.correlation;
      e.external_id = f.external_id;
      if (f.args.present) e.args = ArgsRef{f.args_begin, static_cast<uint32_t>(f.args_end - f.args_begin)};
      if (f.has_extra) {
        if (extra_field_events_++ == 0) extra_field_example_ = std::string(f.extra_key);
      }
      if (ph == 'B') {
        open_begins_[track].push_back(PendingBegin{e, f.begin, f.end, event_index_, f.device, f.stream});
        return;
      }
      trace_.append(track, e);
      notePlacement(trace_.tracks[track], e.category, f.device, f.stream);
      return;
    }
    case 'E': {
      uint32_t track = trackOf(f);
      auto it = open_begins_.find(track);
      if (it == open_begins_.end() || it->second.empty()) {
        ++unmatched_end_;
        keepRaw();
        return;
      }
      PendingBegin b = it->second.back();
      it->second.pop_back();
      if (ts < b.ev.start_ns) eventError(f, "'E' ends before its 'B' (traceEvents[" + std::to_string(b.index) + "]) begins");
      b.ev.dur_ns = ts - b.ev.start_ns;
      if (b.ev.args.length == 0 && f.args.present) {  // the event keeps the "E"'s args, and their placement
        b.ev.args = ArgsRef{f.args_begin, static_cast<uint32_t>(f.args_end - f.args_begin)};
        b.device = f.device;
        b.stream = f.stream;
      }
      trace_.append(track, b.ev);
      notePlacement(trace_.tracks[track], b.ev.category, b.device, b.stream);
      return;
    }
    case 's':
    case 'f': {
      uint64_t id = 0;
      bool usable_id = f.id.present && f.id.type == json_type::number && !f.has_id2;
      if (usable_id) {
        auto [p, ec] = std::from_chars(f.id.text.data(), f.id.text.data() + f.id.text.size(), id);
        usable_id = ec == std::errc() && p == f.id.text.data() + f.id.text.size();
      }
      if (!usable_id) {
        ++unsupported_flow_ids_;
        keepRaw();
        return;
      }
      FlowEnd end;
      end.phase = ph;
      end.enclosing = ph == 's' || (f.bp.present && f.bp.type == json_type::string && f.bp.text == "e");
      end.name_is_ac2g = f.name.text == "ac2g";
      end.cat_id = trace_.strings.intern(f.cat.text);
      end.name_id = trace_.strings.intern(f.name.text);
      end.id = id;
      std::tie(end.pid_id, end.tid_id) = tokenIds(f);
      end.ts = ts;
      end.begin = f.begin;
      end.end = f.end;
      flow_ends_.push_back(end);
      return;
    }
    case 'M': {
      std::string_view n = f.name.text;
      MetaRecord m{};
      bool known = true;
      if (n == "process_name" && f.meta_name.present) {
        m.kind = MetaRecord::ProcessName;
        m.text_id = trace_.strings.intern(f.meta_name.text);
      } else if (n == "thread_name" && f.meta_name.present) {
        m.kind = MetaRecord::ThreadName;
        m.text_id = trace_.strings.intern(f.meta_name.text);
      } else if (n == "process_labels" && f.meta_labels.present) {
        m.kind = MetaRecord::ProcessLabels;
        m.text_id = trace_.strings.intern(f.meta_labels.text);
      } else if (n == "process_sort_index" && f.meta_sort_index) {
        m.kind = MetaRecord::ProcessSort;
        m.number = *f.meta_sort_index;
      } else if (n == "thread_sort_index" && f.meta_sort_index) {
        m.kind = MetaRecord::ThreadSort;
        m.number = *f.meta_sort_index;
      } else {
        known = false;
      }
      if (!known) {
        keepRaw();
        return;
      }
      std::tie(m.pid_id, m.tid_id) = tokenIds(f);
      m.name_id = trace_.strings.intern(n);
      m.begin = f.begin;
      m.end = f.end;
      m.ts = ts;
      meta_records_.push_back(m);
      return;
    }
    default:
      keepRaw();
      return;
  }
}

// ---------------------------------------------------------------------------
// After the last window.

std::optional<uint32_t> Importer::enclosingEvent(const Track& t, int64_t ts, int64_t longest) const {
  // Innermost event containing ts: the latest-starting one (ties: the
  // shorter, which sorts later).
  auto it = std::upper_bound(t.start_ns.begin(), t.start_ns.end(), ts);
  size_t i = size_t(it - t.start_ns.begin());
  while (i > 0) {
    --i;
    if (t.start_ns[i] < ts - longest) break;  // nothing earlier reaches ts
    if (ts < t.start_ns[i] + t.dur_ns[i] || (t.dur_ns[i] == 0 && ts == t.start_ns[i])) return static_cast<uint32_t>(i);
  }
  return std::nullopt;
}

std::optional<uint32_t> Importer::nextEvent(const Track& t, int64_t ts) const {
  auto it = std::lower_bound(t.start_ns.begin(), t.start_ns.end(), ts);
  if (it == t.start_ns.end()) return std::nullopt;
  return static_cast<uint32_t>(it - t.start_ns.begin());
}

void Importer::bindFlows(int64_t base) {
  std::vector<int64_t> longest(trace_.tracks.size(), 0);
  for (size_t ti = 0; ti < trace_.tracks.size(); ++ti)
    for (int64_t d : trace_.tracks[ti].dur_ns) longest[ti] = std::max(longest[ti], d);
  std::optional<uint32_t> ac2g = trace_.strings.find("ac2g");
  size_t dangling = 0;
  auto keepRaw = [&](const FlowEnd& e) {
    raw_pending_.push_back(RawPending{e.begin, e.end, e.ts, e.name_id, e.phase});
  };
  struct Bound {
    const FlowEnd* end;
    EventRef event;
  };
  // Ends the exporter would not re-create from the correlation column, per
  // (category, id) in file order; the k-th 's' pairs with the k-th 'f'.
  std::map<std::pair<uint32_t, uint64_t>, std::pair<std::vector<Bound>, std::vector<Bound>>> by_key;
  // (phase, id, event) of the launch flow ends already recognised.
  std::set<std::tuple<char, uint64_t, uint32_t, uint32_t>> launch_ends_seen;
  auto isLaunchFlowEnd = [&](const FlowEnd& e, uint32_t track, int64_t ts) {
    // Launch -> GPU op flows are written by the exporter from the correlation
    // column: one 's' at the launch call's start, one 'f' ("bp":"e") at each
    // GPU op's start. Those are not stored as flows. Only one end per place
    // is the exporter's: a second identical one belongs to a stored flow.
    if (!ac2g || e.cat_id != *ac2g || !e.name_is_ac2g || e.id > uint64_t(std::numeric_limits<int64_t>::max()))
      return false;
    const LaunchLink* link = trace_.launchFor(static_cast<int64_t>(e.id));
    if (!link || !link->launch || link->gpu_ops.empty()) return false;
    auto at = [&](EventRef r) { return r.track == track && trace_.tracks[r.track].start_ns[r.index] == ts; };
    auto firstAt = [&](EventRef r) { return launch_ends_seen.emplace(e.phase, e.id, r.track, r.index).second; };
    if (e.phase == 's') return at(*link->launch) && firstAt(*link->launch);
    if (!e.enclosing) return false;
    // GPU ops of one launch may start at the same time on one stream.
    return std::any_of(link->gpu_ops.begin(), link->gpu_ops.end(), [&](EventRef r) { return at(r) && firstAt(r); });
  };
  for (const FlowEnd& e : flow_ends_) {
    int64_t ts = e.ts + base;
    auto track = track_by_tokens_.find((uint64_t(e.pid_id) << 32) | e.tid_id);
    if (track != track_by_tokens_.end() && isLaunchFlowEnd(e, track->second, ts)) continue;
    std::optional<uint32_t> index;
    if (track != track_by_tokens_.end()) {
      const Track& t = trace_.tracks[track->second];
      index = e.enclosing ? enclosingEvent(t, ts, longest[track->second]) : nextEvent(t, ts);
    }
    if (!index) {
      ++dangling;
      keepRaw(e);
      continue;
    }
    EventRef ref{track->second, *index};
    auto& lists = by_key[{e.cat_id, e.id}];
    (e.phase == 's' ? lists.first : lists.second).push_back(Bound{&e, ref});
  }
  std::vector<std::pair<size_t, Flow>> flows;
  for (auto& [key, lists] : by_key) {
    auto& [starts, finishes] = lists;
    size_t pairs = std::min(starts.size(), finishes.size());
    for (size_t k = 0; k < pairs; ++k) {
      Flow flow;
      flow.id = key.second;
      flow.cat_id = key.first;
      flow.name_id = starts[k].end->name_id;
      flow.from = starts[k].event;
      flow.to = finishes[k].event;
      flow.from_ts_ns = starts[k].end->ts + base;
      // A next-slice binding is re-expressed as the event's start.
      flow.to_ts_ns = finishes[k].end->enclosing ? finishes[k].end->ts + base : -1;
      flows.emplace_back(starts[k].end->begin, flow);
    }
    for (size_t k = pairs; k < starts.size(); ++k) keepRaw(*starts[k].end);
    for (size_t k = pairs; k < finishes.size(); ++k) keepRaw(*finishes[k].end);
  }
  std::sort(flows.begin(), flows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  trace_.flows.reserve(flows.size());
  for (auto& [pos, flow] : flows) trace_.flows.push_back(flow);
  if (dangling)
    trace_.meta.warnings.push_back(std::to_string(dangling) +
                                   " flow events point at no event on their thread (kept as raw events)");
}

void Importer::finish() {
  int64_t base = base_ns_.value_or(0);
  trace_.meta.base_time_ns = base;
  int64_t max_relative = std::numeric_limits<int64_t>::max() - base;
  for (Track& t : trace_.tracks) {
    for (size_t i = 0; i < t.size(); ++i) {
      if (t.start_ns[i] > max_relative - t.dur_ns[i])
        throw SemanticError{"an event ends past the largest representable time once baseTimeNanoseconds is added", 0};
      t.start_ns[i] += base;
    }
  }

  // "B" never ended.
  for (auto& [track, stack] : open_begins_) {
    for (const PendingBegin& b : stack) {
      ++unmatched_begin_;
      raw_pending_.push_back(RawPending{b.begin, b.end, b.ev.start_ns, b.ev.name_id, 'B'});
    }
  }

  // Metadata: per process (all tracks of the pid) or per thread.
  std::unordered_map<uint32_t, std::vector<uint32_t>> tracks_of_pid;
  for (uint32_t i = 0; i < trace_.tracks.size(); ++i)
    if (trace_.tracks[i].size() > 0) tracks_of_pid[trace_.tracks[i].pid_id].push_back(i);
  for (const MetaRecord& m : meta_records_) {
    bool process_level = m.kind == MetaRecord::ProcessName || m.kind == MetaRecord::ProcessLabels ||
                         m.kind == MetaRecord::ProcessSort;
    std::vector<uint32_t> targets;
    if (process_level) {
      if (auto it = tracks_of_pid.find(m.pid_id); it != tracks_of_pid.end()) targets = it->second;
    } else if (auto it = track_by_tokens_.find((uint64_t(m.pid_id) << 32) | m.tid_id); it != track_by_tokens_.end()) {
      if (trace_.tracks[it->second].size() > 0) targets.push_back(it->second);
    }
    if (targets.empty()) {
      // Metadata of a process or thread with no events: kept verbatim.
      raw_pending_.push_back(RawPending{m.begin, m.end, m.ts, m.name_id, 'M'});
      continue;
    }
    for (uint32_t ti : targets) {
      Track& t = trace_.tracks[ti];
      switch (m.kind) {
        case MetaRecord::ProcessName: t.process_name_id = m.text_id; break;
        case MetaRecord::ProcessLabels: t.process_labels_id = m.text_id; break;
        case MetaRecord::ProcessSort: t.process_sort_index = m.number; break;
        case MetaRecord::ThreadName: t.thread_name_id = m.text_id; break;
        case MetaRecord::ThreadSort: t.thread_sort_index = m.number; break;
      }
    }
  }
  for (Track& t : trace_.tracks) t.sort_index = t.thread_sort_index.value_or(t.process_sort_index.value_or(0));

  trace_.finalize();
  bindFlows(base);

  // Raw events in file order (export writes them back in this order).
  std::sort(raw_pending_.begin(), raw_pending_.end(), [](const RawPending& a, const RawPending& b) { return a.begin < b.begin; });
  trace_.raw_events.reserve(raw_pending_.size());
  for (const RawPending& r : raw_pending_) {
    RawEvent raw;
    raw.json.assign(*buf_, r.begin, r.end - r.begin);
    raw.ts_ns = r.ts <= max_relative ? r.ts + base : r.ts;
    raw.name_id = r.name_id;
    raw.phase = r.phase;
    trace_.raw_events.push_back(std::move(raw));
  }

  if (unmatched_begin_)
    trace_.meta.warnings.push_back(std::to_string(unmatched_begin_) + " 'B' events have no matching 'E' (kept as raw events)");
  if (unmatched_end_)
    trace_.meta.warnings.push_back(std::to_string(unmatched_end_) + " 'E' events have no matching 'B' (kept as raw events)");
  if (unsupported_flow_ids_)
    trace_.meta.warnings.push_back(std::to_string(unsupported_flow_ids_) +
                                   " flow events without a numeric 'id' (kept as raw events)");
  if (extra_field_events_)
    trace_.meta.warnings.push_back(std::to_string(extra_field_events_) + " events have fields fuselab does not keep (e.g. '" +
                                   extra_field_example_ + "')");
}

Trace Importer::run() {
  n_ = buf_->size();
  const std::string& b = *buf_;
  size_t first = 0;
  if (n_ >= 3 && b.compare(0, 3, "\xEF\xBB\xBF") == 0) first = 3;  // UTF-8 byte order mark
  while (first < n_ && isJsonSpace(b[first])) ++first;
  if (n_ == 0) throw TraceImportError(source_ + ": the file is empty");
  if (first == n_) throw TraceImportError(source_ + ": the file contains only whitespace");
  if (b[first] == '{') {
    form_ = Form::Object;
  } else if (b[first] == '[') {
    form_ = Form::Array;
  } else {
    throw TraceImportError(source_ + ": " + where(first) + ": not a trace: expected '{' or '[' but found " +
                           (static_cast<unsigned char>(b[first]) >= 0x20 && static_cast<unsigned char>(b[first]) < 0x7f
                                ? "'" + std::string(1, b[first]) + "'"
                                : "byte 0x" + [&] {
                                    char hex[4];
                                    std::snprintf(hex, sizeof(hex), "%02x", static_cast<unsigned char>(b[first]));
                                    return std::string(hex);
                                  }()));
  }
  if (form_ == Form::Array) saw_events_array_ = true;

  try {
    // The head window; it grows until at least one event (or everything) fits.
    bool head = true;
    size_t start = 0;
    resume_at_ = first + 1;
    while (true) {
      WindowState saved = saveState();
      Outcome o = parseWindow(start, head);
      if (o == Outcome::Done) break;
      if (o == Outcome::Grow) {
        // Not even one event fitted: forget what the window read, retry larger.
        restoreState(std::move(saved));
        if (window_bytes_ >= n_) throw TraceImportError(source_ + ": internal error: the parse window cannot grow");
        window_bytes_ = std::min(n_, window_bytes_ * 2);
        continue;
      }
      // Continue after the last committed event.
      head = false;
      start = resume_at_;
    }
    events_array_done_ = true;
    finish();
  } catch (const SemanticError& e) {
    throw TraceImportError(source_ + ": " + e.message);
  }
  trace_.meta.source = source_;
  trace_.args_text = buf_;
  return std::move(trace_);
}

}  // namespace

Trace importChromeTraceFromBuffer(std::string bytes, std::string source_name, const ChromeImportOptions& options) {
  if (looksGzipped(bytes)) {
    try {
      bytes = gunzip(bytes, simdjson::SIMDJSON_PADDING);
    } catch (const GzipError& e) {
      throw TraceImportError(source_name + ": " + e.what());
    }
  }
  Importer importer(std::move(bytes), std::move(source_name), options);
  return importer.run();
}

Trace importChromeTrace(const std::filesystem::path& path, const ChromeImportOptions& options) {
  std::string name = path.string();
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw TraceImportError(name + ": cannot open: " + std::strerror(errno));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(file, &std::fclose);
  struct stat st {};
  if (::fstat(::fileno(file), &st) != 0) throw TraceImportError(name + ": cannot read its size: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw TraceImportError(name + ": not a regular file");
  auto size = static_cast<size_t>(st.st_size);
  std::string bytes;
  try {
    bytes.reserve(size + simdjson::SIMDJSON_PADDING);
    adviseHugePages(bytes.data(), bytes.capacity());
    bytes.resize(size);
  } catch (const std::bad_alloc&) {
    throw TraceImportError(name + ": not enough memory to read " + std::to_string(size) + " bytes");
  }
  size_t got = std::fread(bytes.data(), 1, size, file);
  if (got != size) throw TraceImportError(name + ": read " + std::to_string(got) + " of " + std::to_string(size) + " bytes");
  if (looksGzipped(bytes)) {
    try {
      std::string text = gunzip(bytes, simdjson::SIMDJSON_PADDING);
      bytes = std::string();  // free the compressed bytes before parsing
      bytes = std::move(text);
    } catch (const GzipError& e) {
      throw TraceImportError(name + ": " + e.what());
    }
  }
  Importer importer(std::move(bytes), std::move(name), options);
  return importer.run();
}

}  // namespace fuselab
