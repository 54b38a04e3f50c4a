// The importer's windows: cutting the file into documents for simdjson, the
// top-level object and the traceEvents array, and the errors they report.
#include <string>

#include "profiling/trace/ChromeTraceImporter.h"
#include "profiling/trace/WindowCut.h"

namespace fuselab::chrome_import {

namespace {

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

}  // namespace

// Windows. A window is a slice of the file handed to simdjson as a complete
// document: the head window starts at byte 0; later windows start after the
// last committed event and get a synthetic prefix ("[0" or
// "{\"traceEvents\":[0", the 0 being a dummy element) so that the slice reads
// as the same document. A window that stops before the end of the file is cut
// at a newline or comma (WindowCut.h) and closed with "]" / "]}"; whatever
// event the cut lands in fails to parse and is read again at the start of the
// next window.

bool Importer::prepareWindow(size_t start, bool head, size_t limit, int attempt) {
  size_t available = fill(limit > SIZE_MAX - start - 1 ? SIZE_MAX : start + limit + 1);
  size_t end = available;
  if (available - start > limit) {
    // A newline in the second half of the limit, else a comma; `attempt`
    // skips candidates that failed. Taking newlines first matters: eight
    // commas inside one kernel name used to exhaust the attempts, and the
    // fallback below reads the whole rest of the file into one window.
    size_t cut = windowCut(textAt(start, start + limit), limit / 2, attempt);
    if (cut == std::string_view::npos) return false;
    end = start + cut;
  }
  copyWindow(*slot_, start, end, head);
  return true;
}

void Importer::copyWindow(Slot& s, size_t start, size_t end, bool head) {
  std::string_view prefix;
  if (!head) prefix = form_ == Form::Object ? std::string_view("{\"traceEvents\":[0") : std::string_view("[0");
  Window& w = s.window;
  w = Window{};
  w.file_begin = start;
  w.prefix_len = prefix.size();
  w.continuation = !head;
  w.file_end = end;
  w.final = at_eof_ && end == n_;
  std::string_view suffix;
  if (!w.final) suffix = form_ == Form::Object ? std::string_view("]}") : std::string_view("]");
  size_t len = prefix.size() + (end - start) + suffix.size();
  std::string& text = s.text;
  if (text.capacity() < len + simdjson::SIMDJSON_PADDING) {
    text.clear();
    text.shrink_to_fit();
    text.reserve(len + simdjson::SIMDJSON_PADDING);
  }
  text.assign(prefix);
  text.append(textAt(start, end));
  text.append(suffix);
  w.text = text.data();
  w.text_len = len;
}

Importer::Outcome Importer::parseWindow(size_t start, bool head) {
  Window& w = slot_->window;
  od::document doc;
  simdjson::error_code err = simdjson::SUCCESS;
  for (int attempt = 0;; ++attempt) {
    if (!prepareWindow(start, head, attempt < 8 ? window_bytes_ : SIZE_MAX, attempt)) {
      // No usable cut: take the rest of the file.
      prepareWindow(start, head, SIZE_MAX, 0);
    }
    size_t capacity = slot_->text.capacity();
    err = slot_->parser.iterate(simdjson::padded_string_view(w.text, w.text_len, capacity)).get(doc);
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
  size_t from = w.file_begin, to = w.file_end;
  if (code == simdjson::UTF8_ERROR) {
    size_t bad = from + firstInvalidUtf8(std::string_view(w.text + w.prefix_len, to - from));
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
  std::vector<EventFields>& events = slot_->events;
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
    EventFields& f = events.emplace_back();
    try {
      readEvent(v, w, f, event_index_);
    } catch (const simdjson::simdjson_error& err) {
      events.pop_back();
      if (!w.final) {
        outcome = Outcome::Continue;
        return;
      }
      throw;
    } catch (...) {
      events.pop_back();
      throw;
    }
    if (!w.final && f.close > w.copiedEnd()) {
      // The synthetic "]}" closed this event (the cut fell inside one of
      // its arrays): read it again in the next window.
      events.pop_back();
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
    ++event_index_;  // committed when the slot is handed over
  }
  // The array closed: for a cut window that was the synthetic ']'.
  outcome = w.final ? Outcome::Done : Outcome::Continue;
}

}  // namespace fuselab::chrome_import
