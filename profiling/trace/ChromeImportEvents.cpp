// Interpreting one element read from traceEvents (commitEvent): its category,
// times and track; B/E pairing; flow ends, metadata and raw events kept for later.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <string>
#include <tuple>

#include "profiling/trace/ChromeTraceImporter.h"
#include "profiling/trace/DecimalTime.h"

namespace fuselab::chrome_import {

namespace {

// A GPU track's device and stream: the smallest that its GPU work's args name,
// so that they do not depend on the order of the events in the file (an export
// writes them sorted by time, and a re-import must find the same).
void notePlacement(Track& t, Category category, int64_t device, int64_t stream) {
  if (!isGpuWork(category)) return;
  if (device >= 0 && (t.device < 0 || device < t.device)) t.device = static_cast<int>(device);
  if (stream >= 0 && (t.stream < 0 || stream < t.stream)) t.stream = stream;
}

// A flow end's "id": a number in uint64_t range, and no "id2" (scoped ids are
// not supported). false when unusable.
inline bool readFlowId(const EventFields& f, uint64_t& id) {
  if (!f.id.present || f.id.type != json_type::number || f.has_id2) return false;
  auto [p, ec] = std::from_chars(f.id.text.data(), f.id.text.data() + f.id.text.size(), id);
  return ec == std::errc() && p == f.id.text.data() + f.id.text.size();
}

// The kind of an "M" event that names or orders a process or thread, and its
// value (the name or labels interned, or the sort index). false for any other.
inline bool readMetaValue(const EventFields& f, StringTable& strings, MetaRecord& m) {
  const std::string_view n = f.name.text;
  if (n == "process_name" && f.meta_name.present) {
    m.kind = MetaRecord::ProcessName;
    m.text_id = strings.intern(f.meta_name.text);
  } else if (n == "thread_name" && f.meta_name.present) {
    m.kind = MetaRecord::ThreadName;
    m.text_id = strings.intern(f.meta_name.text);
  } else if (n == "process_labels" && f.meta_labels.present) {
    m.kind = MetaRecord::ProcessLabels;
    m.text_id = strings.intern(f.meta_labels.text);
  } else if (n == "process_sort_index" && f.meta_sort_index) {
    m.kind = MetaRecord::ProcessSort;
    m.number = *f.meta_sort_index;
  } else if (n == "thread_sort_index" && f.meta_sort_index) {
    m.kind = MetaRecord::ThreadSort;
    m.number = *f.meta_sort_index;
  } else {
    return false;
  }
  return true;
}

}  // namespace

// Grown by doubling, the columns of a big track (and the flow ends) were
// copied about twice over, each copy stalling this thread long enough to make
// the reader wait (10M events: 23 doublings). Past a first sample, a full one
// is reserved for its share of the whole text instead, as projected from the
// offset of the event being committed; reserving costs address space only.
bool Importer::shouldGrow(size_t size, size_t capacity) { return size >= 4096 && size == capacity; }

size_t Importer::projectedSize(size_t size, size_t file_offset) const {
  const double share = double(stream_.textSizeHint()) / double(std::max<size_t>(file_offset, 1));
  return std::max(size + size / 2, size_t(double(size) * share * 1.1));
}

void Importer::makeRoom(uint32_t track, size_t file_offset) {
  Track& t = trace_.tracks[track];
  if (shouldGrow(t.size(), t.start_ns.capacity())) t.reserve(projectedSize(t.size(), file_offset));
}

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

// An event kept as written, for export: another phase, or one that cannot be
// placed (an 'E' without its 'B', a flow end without a numeric id, ...).
void Importer::keepRaw(const EventFields& f, int64_t ts, char ph) {
  raw_pending_.push_back(RawPending{f.begin, f.end, keepText(f.begin, f.end), ts, trace_.strings.intern(f.name.text), ph});
}

// 'X' goes on its track; 'B' waits for its 'E'.
[[gnu::always_inline]] inline void Importer::commitSlice(const EventFields& f, char ph, int64_t ts) {
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
  if (f.args.present && keepsArgs(e.name_id))
    e.args = trace_.addArgs(compactArgs(committedText(f.args_begin, f.args_end)));
  if (f.has_extra) {
    if (extra_field_events_++ == 0) extra_field_example_ = std::string(f.extra_key);
  }
  if (ph == 'B') {
    open_begins_[track].push_back(
        PendingBegin{e, f.begin, f.end, keepText(f.begin, f.end), f.index, f.device, f.stream, f.args.present});
    return;
  }
  makeRoom(track, f.begin);
  trace_.append(track, e);
  notePlacement(trace_.tracks[track], e.category, f.device, f.stream);
}

// 'E': the innermost open 'B' of its track ends here.
[[gnu::always_inline]] inline void Importer::commitEnd(const EventFields& f, int64_t ts) {
  uint32_t track = trackOf(f);
  auto it = open_begins_.find(track);
  if (it == open_begins_.end() || it->second.empty()) {
    ++unmatched_end_;
    keepRaw(f, ts, 'E');
    return;
  }
  PendingBegin b = it->second.back();
  it->second.pop_back();
  if (ts < b.ev.start_ns) eventError(f, "'E' ends before its 'B' (traceEvents[" + std::to_string(b.index) + "]) begins");
  b.ev.dur_ns = ts - b.ev.start_ns;
  if (!b.has_args && f.args.present) {  // the event keeps the "E"'s args, and their placement
    if (keepsArgs(b.ev.name_id)) b.ev.args = trace_.addArgs(compactArgs(committedText(f.args_begin, f.args_end)));
    b.device = f.device;
    b.stream = f.stream;
  }
  makeRoom(track, f.begin);
  trace_.append(track, b.ev);
  notePlacement(trace_.tracks[track], b.ev.category, b.device, b.stream);
}

// 's' and 'f': kept until the end, when the events they bind to are known.
[[gnu::always_inline]] inline void Importer::commitFlowEnd(const EventFields& f, char ph, int64_t ts) {
  uint64_t id = 0;
  if (!readFlowId(f, id)) {
    ++unsupported_flow_ids_;
    keepRaw(f, ts, ph);
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
  end.text_at = keepText(f.begin, f.end);
  if (shouldGrow(flow_ends_.size(), flow_ends_.capacity()))
    flow_ends_.reserve(projectedSize(flow_ends_.size(), f.begin));
  flow_ends_.push_back(end);
}

// 'M': names and sort indexes, applied at the end to the tracks they name.
[[gnu::always_inline]] inline void Importer::commitMetadata(const EventFields& f, int64_t ts) {
  MetaRecord m{};
  if (!readMetaValue(f, trace_.strings, m)) {
    keepRaw(f, ts, 'M');
    return;
  }
  std::tie(m.pid_id, m.tid_id) = tokenIds(f);
  m.name_id = trace_.strings.intern(f.name.text);
  m.begin = f.begin;
  m.end = f.end;
  m.text_at = keepText(f.begin, f.end);
  m.ts = ts;
  meta_records_.push_back(m);
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

  switch (ph) {
    case 'X':
    case 'B': commitSlice(f, ph, ts); return;
    case 'E': commitEnd(f, ts); return;
    case 's':
    case 'f': commitFlowEnd(f, ph, ts); return;
    case 'M': commitMetadata(f, ts); return;
    default: keepRaw(f, ts, ph); return;
  }
}

bool Importer::keepsArgs(uint32_t name_id) {
  if (!keep_args_) return true;
  if (name_id >= keeps_args_of_name_.size()) keeps_args_of_name_.resize(name_id + 1, -1);
  int8_t& keeps = keeps_args_of_name_[name_id];
  if (keeps < 0) keeps = keep_args_(trace_.strings.get(name_id)) ? 1 : 0;
  return keeps;
}

std::string_view Importer::compactArgs(std::string_view args) {
  if (args.find('\n') == std::string_view::npos) return args;  // on one line: as written
  compact_args_.resize(args.size());
  size_t len = 0;
  if (simdjson::minify(args.data(), args.size(), compact_args_.data(), len) != simdjson::SUCCESS) return args;
  return std::string_view(compact_args_.data(), len);
}

}  // namespace fuselab::chrome_import
