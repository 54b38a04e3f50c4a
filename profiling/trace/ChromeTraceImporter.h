// Internal to the Chrome trace importer (the public interface is
// ChromeTraceImport.h): what its phases share. Include it nowhere else.
//
// The importer reads the file in windows (slices handed to simdjson as whole
// documents), reads each traceEvents element's fields, commits it to the
// trace, and after the last window binds flows and finishes the trace:
//   ChromeTraceImport.cpp    the entry points (file or buffer, gunzip) and
//                            Importer::run: the head of the file, the finish
//   ChromeImportPipeline.cpp the window loop on a reader thread, handing
//                            each window's events to run's thread in order
//   ChromeImportSpeculation.cpp  the middle windows parsed on two threads,
//                            cut where the text shows an element boundary
//   ChromeImportReading.cpp  windows: cutting the file, parsing the top-level
//                            object and the traceEvents array, syntax errors
//   ChromeImportFields.cpp   one element's fields: tokens, validation, args,
//                            the top-level fields other than traceEvents
//   ChromeImportEvents.cpp   interpreting one element: categories, times,
//                            tracks, B/E pairs, flow ends, metadata (commitEvent)
//   ChromeImportFinish.cpp   after the last window: base time, metadata,
//                            flow binding, raw events, warnings
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "profiling/trace/ChromeImportRecords.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/JsonStructure.h"
#include "profiling/trace/Trace.h"
#include "profiling/trace/TraceTextStream.h"

namespace fuselab::chrome_import {

namespace od = simdjson::ondemand;
using od::json_type;

// "an array", "a number", ... for error messages (ChromeImportFields.cpp).
std::string_view typeName(json_type t);

inline bool isJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

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

// What the reader keeps of one traceEvents element. Views point into its
// slot's window text or the slot parser's string buffer: valid until the
// slot is parsed again.
struct EventFields {
  Token ph, name, cat, pid, tid, ts, dur, id, bp, args;
  size_t index = 0;           // in traceEvents (set again when committed)
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

// One window in flight: the parser and text its events point into, and the
// events read from it, in file order (ChromeImportPipeline.cpp).
struct Slot {
  od::parser parser;
  std::string text;  // the window's text, simdjson's padding after it
  Window window;
  std::vector<EventFields> events;
  // For a window parsed ahead (ChromeImportSpeculation.cpp): whether its
  // parse showed its cuts to be boundaries between elements.
  enum class Check { Pending, Ok, Failed };
  Check check = Check::Pending;
};

// Where a slot is: free, being parsed, or parsed and waiting to be committed.
enum class SlotState { Free, Parsing, Filled };

class Importer {
 public:
  Importer(TraceTextStream& stream, std::string source, const ChromeImportOptions& options, uint64_t memory_limit)
      : source_(std::move(source)),
        window_bytes_(std::max<size_t>(options.window_bytes, 256)),
        stream_(stream),
        progress_(options.progress),
        stats_(options.stats),
        keep_args_(options.keep_args),
        memory_limit_(memory_limit),
        parallel_(options.parallel) {}

  Trace run();

 private:
  // --- windows and the document around the events (ChromeImportReading.cpp) --
  enum class Form { Object, Array };
  enum class Outcome { Done, Continue, Grow };
  // --- the window loop and its hand-over (ChromeImportPipeline.cpp) ---------
  // Parse side: the text, the windows, the top-level fields and event_index_
  // belong to the reader; commit side: trace_ (but meta_) and the event state.
  void readAll();      // every window, each handed over; on an error the
  void readWindows();  // events read before it are handed over first
  void acquireSlot();  // the next slot to parse into (waits until committed)
  void handOver();     // the slot's events to the commit side
  void commitAll();    // run's thread, with a reader thread: commit in order
  void commitSlot(Slot& s);
  void stopReader();
  void setSlotState(int slot, SlotState state);
  struct Stopped {};   // the reader was told to stop (the commit side failed)

  Outcome parseWindow(size_t start, bool head);
  // The slot's window: file[start, end) between the synthetic prefix and suffix.
  bool prepareWindow(size_t start, bool head, size_t limit, int attempt);
  void copyWindow(Slot& s, size_t start, size_t end, bool head);
  void parseTopLevelObject(od::document& doc, const Window& w, bool head, Outcome& outcome);
  struct WindowState {
    TraceMetadata meta;
    std::optional<int64_t> base_ns;
    bool saw_events_array, events_array_done;
    size_t resume_at;
  };
  WindowState saveState() const { return {meta_, base_ns_, saw_events_array_, events_array_done_, resume_at_}; }
  void restoreState(WindowState s) {
    meta_ = std::move(s.meta);
    base_ns_ = s.base_ns;
    saw_events_array_ = s.saw_events_array;
    events_array_done_ = s.events_array_done;
    resume_at_ = s.resume_at;
  }
  void parseEvents(od::array arr, const Window& w, Outcome& outcome);
  [[noreturn]] void syntaxError(simdjson::error_code code, const Window& w, const char* where_ptr, const std::string& context);
  [[noreturn]] void stage1Error(simdjson::error_code code, const Window& w);

  // --- windows parsed ahead on two threads (ChromeImportSpeculation.cpp) ----
  // From `start` (after the head window), until a window's parse shows a cut
  // that was not between two elements, or the end of the text is near;
  // returns where window-by-window reading goes on, with event_index_,
  // current_ and the slots set for it.
  size_t readAhead(size_t start);
  void readAheadWorker(Slot* claimed = nullptr);  // parses `claimed` first
  Slot* claimAheadWindow();  // the next window's text in its slot; null: stop
  bool parseAheadWindow(Slot& s);  // false: not what the cuts assumed
  void finishAheadWindow(Slot& s, bool ok);
  void stopReadingAhead();
  void backOffReadingAhead();  // 4, 8, 16... windows one by one before the next try
  int aheadSlot(size_t number) const { return int((ahead_first_slot_ + number) % kSlots); }

  // --- one element's fields (ChromeImportFields.cpp) -------------------------
  void readEvent(od::value v, const Window& w, EventFields& f, size_t index);
  void readArgs(od::value v, const Window& w, EventFields& f);
  Token readToken(od::value v, json_type t);
  void validate(od::value& v, const Window& w, int depth);  // by reference: a copy per call stalled on store forwarding
  [[noreturn]] void tooDeep(od::value v, const Window& w);
  void readTopLevelField(std::string_view key, od::value v, const Window& w);

  // --- interpreting one element (ChromeImportEvents.cpp) ---------------------
  void commitEvent(const EventFields& f);
  // Its phases, each given the event's 'ts'; defined, and inlined, in ChromeImportEvents.cpp only.
  inline void commitSlice(const EventFields& f, char ph, int64_t ts);    // 'X', 'B'
  inline void commitEnd(const EventFields& f, int64_t ts);               // 'E'
  inline void commitFlowEnd(const EventFields& f, char ph, int64_t ts);  // 's', 'f'
  inline void commitMetadata(const EventFields& f, int64_t ts);          // 'M'
  void keepRaw(const EventFields& f, int64_t ts, char ph);  // verbatim, for export; rare: left out of line
  int64_t timeField(const EventFields& f, const Token& t, const char* name, bool required);
  uint32_t trackOf(const EventFields& f);
  // Room reserved ahead for what is appended in file order (ChromeImportEvents.cpp).
  static bool shouldGrow(size_t size, size_t capacity);
  size_t projectedSize(size_t size, size_t file_offset) const;
  void makeRoom(uint32_t track, size_t file_offset);  // before appending to the track
  std::pair<uint32_t, uint32_t> tokenIds(const EventFields& f);
  Category categoryOf(uint32_t cat_id);

  // --- after the last window (ChromeImportFinish.cpp) ------------------------
  void finish();
  void bindFlows(int64_t base);
  std::optional<uint32_t> enclosingEvent(const Track& t, int64_t ts, int64_t longest) const;
  std::optional<uint32_t> nextEvent(const Track& t, int64_t ts) const;

  // --- error locations (below) -----------------------------------------------
  [[noreturn]] void eventError(const EventFields& f, const std::string& what) const;
  std::string where(size_t offset) const;

  // --- the text, read front to back (ChromeTraceImport.cpp) -----------------
  // Makes bytes up to `end` available (fewer at the end of the file); returns
  // the offset one past the last available byte.
  size_t fill(size_t end);
  char at(size_t offset) const { return text_[offset - text_base_]; }
  std::string_view textAt(size_t begin, size_t end) const {
    return std::string_view(text_.data(), text_.size()).substr(begin - text_base_, end - begin);
  }
  void forgetBefore(size_t offset);  // the committed text is no longer needed
  // Commit side: text of the event being committed, from its window's copy.
  std::string_view committedText(size_t begin, size_t end) const {
    const Window& w = *commit_window_;
    return std::string_view(w.text + w.prefix_len + (begin - w.file_begin), end - begin);
  }
  // Args printed over many lines (pretty-printed JSON) without their
  // whitespace, so that they take no more memory than on one line.
  std::string_view compactArgs(std::string_view args);
  // Whether an event named `name_id` keeps its args (ChromeImportOptions::keep_args).
  bool keepsArgs(uint32_t name_id);
  size_t keepText(size_t begin, size_t end) { return raw_text_.add(committedText(begin, end)); }
  void reportProgress();

  std::string source_;
  size_t window_bytes_;
  TraceTextStream& stream_;
  ImportProgress* progress_;
  ImportWindowStats* stats_;  // windows, read_ahead: commit side; ahead_failures: the reader
  uint64_t memory_limit_;  // refuse to go on once the estimate passes this (0: no limit)
  TextBuffer text_;        // file bytes [text_base_, text_base_ + text_.size())
  size_t text_base_ = 0;
  bool at_eof_ = false;
  size_t n_ = SIZE_MAX;    // the text's length, once at_eof_
  TextArena raw_text_;
  std::string compact_args_;  // compactArgs' result
  bool (*keep_args_)(std::string_view);
  std::vector<int8_t> keeps_args_of_name_;  // keep_args_ per name id: -1 not asked yet
  Form form_ = Form::Object;

  // Windows in flight, used in turn: the reader (and, reading ahead, the
  // helper) parses into one while the events of those before it are
  // committed; a few slots absorb the threads' scheduling delays. Guarded by
  // mutex_: state_, reader_done_, reader_error_.
  static constexpr int kSlots = 4;
  bool parallel_;
  Slot slots_[kSlots];
  Slot* slot_ = nullptr;  // the reader's current slot
  int current_ = 0;       // its index
  bool holding_ = false;  // the reader holds slot_ and has not handed it over
  const Window* commit_window_ = nullptr;
  size_t committed_events_ = 0;  // commit side
  std::mutex mutex_;
  std::condition_variable changed_;
  SlotState state_[kSlots] = {};
  bool reader_done_ = false;
  std::exception_ptr reader_error_;
  std::atomic<bool> stop_{false};

  // Reading ahead (ChromeImportSpeculation.cpp). ahead_mutex_ orders the
  // claims and guards the text while the two threads read ahead; it is never
  // taken while holding mutex_.
  std::mutex ahead_mutex_;
  int ahead_first_slot_ = 0;      // the slot of window 0
  size_t ahead_claimed_ = 0;      // windows claimed so far
  size_t ahead_next_start_ = 0;   // file offset where the next one starts
  // Where the string scan of the last claimed window stopped (text without
  // newlines, WindowCut.h): file offset and state; 0: none this time.
  size_t ahead_scan_at_ = 0;
  ScanState ahead_scan_;
  std::atomic<bool> ahead_stop_{false};
  std::atomic<size_t> ahead_events_ok_{0};  // events of windows whose check passed
  std::exception_ptr ahead_error_;        // under ahead_mutex_
  // Windows read one by one before reading ahead again: one after windows
  // were read ahead, more each time none could be or one failed its check
  // (a text where that keeps happening is then read as before).
  size_t windows_before_ahead_ = 0;
  size_t ahead_failures_ = 0;

  Trace trace_;
  size_t event_index_ = 0;     // index in traceEvents of the next element
  size_t resume_at_ = 0;       // file offset after the last committed element
  bool saw_events_array_ = false;
  bool events_array_done_ = false;

  // Top-level fields (parse side; meta_ becomes trace_.meta at the end).
  TraceMetadata meta_;
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

inline std::string Importer::where(size_t offset) const { return "byte " + std::to_string(offset); }

inline void Importer::eventError(const EventFields& f, const std::string& what) const {
  throw SemanticError{"traceEvents[" + std::to_string(f.index) + "] (" + where(f.begin) + "): " + what, f.begin};
}

}  // namespace fuselab::chrome_import
