#include "profiling/trace/ChromeTraceExport.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "profiling/trace/AtomicFile.h"
#include "profiling/trace/DecimalTime.h"
#include "profiling/trace/MemoryEvents.h"
#include "profiling/trace/Gzip.h"

namespace fuselab {

namespace {

std::string jsonString(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool isJsonNumberToken(std::string_view s) {
  int64_t ignored;
  DecimalParse r = parseScaledDecimal(s, 0, ignored, /*allow_negative=*/true);
  return r == DecimalParse::Ok || r == DecimalParse::OutOfRange;
}

class Writer {
 public:
  explicit Writer(const Trace& trace) : t_(trace), quoted_(trace.strings.size()), tokens_(trace.strings.size()) {}

  std::string run();

 private:
  // A string-table entry as a JSON string literal (cached: names repeat).
  const std::string& quoted(uint32_t id) {
    std::string& q = quoted_[id];
    if (q.empty()) q = jsonString(t_.strings.get(id));
    return q;
  }
  // A pid/tid token: the raw JSON token the importer kept ("644",
  // "\"Spans\""); anything else a producer put there is written as a string.
  const std::string& token(uint32_t id) {
    std::string& q = tokens_[id];
    if (q.empty()) {
      std::string_view s = t_.strings.get(id);
      bool quoted_token = s.size() >= 2 && s.front() == '"' && s.back() == '"' &&
                          !nlohmann::json::parse(s, nullptr, false).is_discarded();
      q = (quoted_token || isJsonNumberToken(s)) ? std::string(s) : jsonString(s);
    }
    return q;
  }
  void time(int64_t abs_ns) { appendMicroseconds(out_, abs_ns - base_); }
  void beginEvent() {
    out_ += first_event_ ? "\n  " : ",\n  ";
    first_event_ = false;
  }
  void chooseBase();
  void metadata();
  void events();
  void launchFlows();
  void otherFlows();
  void memoryCounters();
  int64_t flowTime(EventRef r, int64_t stored) const {
    return stored >= 0 ? stored : t_.tracks[r.track].start_ns[r.index];
  }
  bool valid(EventRef r) const { return r.track < t_.tracks.size() && r.index < t_.tracks[r.track].size(); }

  const Trace& t_;
  std::string out_;
  int64_t base_ = 0;
  bool first_event_ = true;
  std::vector<std::string> quoted_;
  std::vector<std::string> tokens_;
};

void Writer::chooseBase() {
  // Kineto times are relative to baseTimeNanoseconds and must not be
  // negative: lower the base if something starts before it.
  int64_t earliest = std::numeric_limits<int64_t>::max();
  for (const Track& tr : t_.tracks)
    if (tr.size()) earliest = std::min(earliest, tr.start_ns.front());
  for (const Flow& f : t_.flows) {
    if (f.from_ts_ns >= 0) earliest = std::min(earliest, f.from_ts_ns);
    if (f.to_ts_ns >= 0) earliest = std::min(earliest, f.to_ts_ns);
  }
  base_ = std::max<int64_t>(t_.meta.base_time_ns, 0);
  if (earliest < 0) throw TraceExportError("cannot export: an event starts before 1970 (negative time)");
  if (earliest < base_) base_ = earliest - earliest % 1000;
}

void Writer::metadata() {
  int64_t earliest = std::numeric_limits<int64_t>::max();
  for (const Track& tr : t_.tracks)
    if (tr.size()) earliest = std::min(earliest, tr.start_ns.front());
  if (earliest == std::numeric_limits<int64_t>::max()) earliest = base_;
  std::set<uint32_t> processes_done;
  auto meta = [&](std::string_view name, uint32_t pid, std::string_view tid, const std::string& args) {
    beginEvent();
    out_ += "{\"name\": \"";
    out_ += name;
    out_ += "\", \"ph\": \"M\", \"ts\": ";
    time(earliest);
    out_ += ", \"pid\": ";
    out_ += token(pid);
    out_ += ", \"tid\": ";
    out_ += tid;
    out_ += ", \"args\": {";
    out_ += args;
    out_ += "}}";
  };
  for (const Track& tr : t_.tracks) {
    if (tr.size() == 0) continue;
    if (processes_done.insert(tr.pid_id).second) {
      if (tr.process_name_id) meta("process_name", tr.pid_id, "0", "\"name\": " + quoted(tr.process_name_id));
      if (tr.process_labels_id) meta("process_labels", tr.pid_id, "0", "\"labels\": " + quoted(tr.process_labels_id));
      if (tr.process_sort_index)
        meta("process_sort_index", tr.pid_id, "0", "\"sort_index\": " + std::to_string(*tr.process_sort_index));
    }
    if (tr.thread_name_id) meta("thread_name", tr.pid_id, token(tr.tid_id), "\"name\": " + quoted(tr.thread_name_id));
    std::optional<int64_t> thread_sort = tr.thread_sort_index;
    if (!thread_sort && !tr.process_sort_index && tr.sort_index != 0) thread_sort = tr.sort_index;
    if (thread_sort) meta("thread_sort_index", tr.pid_id, token(tr.tid_id), "\"sort_index\": " + std::to_string(*thread_sort));
  }
}

void Writer::events() {
  for (const Track& tr : t_.tracks) {
    const std::string& pid = token(tr.pid_id);
    const std::string& tid = token(tr.tid_id);
    for (size_t i = 0; i < tr.size(); ++i) {
      beginEvent();
      out_ += "{\"ph\": \"X\", \"cat\": ";
      out_ += quoted(tr.cat_id[i]);
      out_ += ", \"name\": ";
      out_ += quoted(tr.name_id[i]);
      out_ += ", \"pid\": ";
      out_ += pid;
      out_ += ", \"tid\": ";
      out_ += tid;
      out_ += ", \"ts\": ";
      time(tr.start_ns[i]);
      out_ += ", \"dur\": ";
      appendMicroseconds(out_, tr.dur_ns[i]);
      if (const std::string_view args = t_.argsJson(tr.args[i]); !args.empty()) {
        out_ += ", \"args\": ";
        out_ += args;
      } else {
        // No source args (live capture): write what the columns hold.
        std::string fields;
        auto add = [&](const char* key, int64_t v) {
          if (v < 0) return;
          if (!fields.empty()) fields += ", ";
          fields += key;
          fields += std::to_string(v);
        };
        add("\"correlation\": ", tr.correlation[i]);
        add("\"External id\": ", tr.external_id[i]);
        if (isGpuWork(tr.category[i]) && tr.kind == TrackKind::Gpu) {
          add("\"device\": ", tr.device);
          add("\"stream\": ", tr.stream);
        }
        if (!fields.empty()) {
          out_ += ", \"args\": {";
          out_ += fields;
          out_ += "}";
        }
      }
      out_ += "}";
    }
  }
}

void Writer::launchFlows() {
  for (const LaunchLink& link : t_.launches()) {
    if (!link.launch || link.gpu_ops.empty() || !valid(*link.launch)) continue;
    std::string id = std::to_string(link.correlation);
    auto end = [&](char phase, EventRef r) {
      const Track& tr = t_.tracks[r.track];
      beginEvent();
      out_ += "{\"ph\": \"";
      out_ += phase;
      out_ += "\", \"id\": ";
      out_ += id;
      out_ += ", \"pid\": ";
      out_ += token(tr.pid_id);
      out_ += ", \"tid\": ";
      out_ += token(tr.tid_id);
      out_ += ", \"ts\": ";
      time(tr.start_ns[r.index]);
      out_ += phase == 's' ? ", \"cat\": \"ac2g\", \"name\": \"ac2g\"}" : ", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}";
    };
    end('s', *link.launch);
    for (EventRef op : link.gpu_ops)
      if (valid(op)) end('f', op);
  }
}

void Writer::otherFlows() {
  for (size_t k = 0; k < t_.flows.size(); ++k) {
    const Flow& f = t_.flows[k];
    if (!valid(f.from) || !valid(f.to))
      throw TraceExportError("cannot export: flow " + std::to_string(k) + " refers to an event that does not exist");
    // An 'f' bound to the next slice in the source (to_ts_ns < 0) is written
    // the same way, at that slice's start, so it binds to the same event among
    // slices that start together; otherwise as an enclosing-slice end ("bp").
    auto end = [&](char phase, EventRef r, int64_t ts, bool enclosing) {
      const Track& tr = t_.tracks[r.track];
      beginEvent();
      out_ += "{\"ph\": \"";
      out_ += phase;
      out_ += "\", \"id\": ";
      out_ += std::to_string(f.id);
      out_ += ", \"pid\": ";
      out_ += token(tr.pid_id);
      out_ += ", \"tid\": ";
      out_ += token(tr.tid_id);
      out_ += ", \"ts\": ";
      time(ts);
      out_ += ", \"cat\": ";
      out_ += quoted(f.cat_id);
      out_ += ", \"name\": ";
      out_ += quoted(f.name_id);
      out_ += phase == 'f' && enclosing ? ", \"bp\": \"e\"}" : "}";
    };
    end('s', f.from, flowTime(f.from, f.from_ts_ns), true);
    end('f', f.to, flowTime(f.to, f.to_ts_ns), f.to_ts_ns >= 0);
  }
}

std::string Writer::run() {
  chooseBase();
  out_.reserve(t_.eventCount() * 160 + t_.argsBytes() / 2 + 4096);
  out_ += "{\n  \"schemaVersion\": ";
  out_ += std::to_string(t_.meta.schema_version);
  out_ += ",\n  \"deviceProperties\": [";
  for (size_t i = 0; i < t_.meta.devices.size(); ++i) {
    const DeviceProperties& d = t_.meta.devices[i];
    out_ += i ? ",\n    " : "\n    ";
    if (!d.json.empty()) {
      out_ += d.json;
    } else {
      out_ += "{\"id\": " + std::to_string(d.id) + ", \"name\": " + jsonString(d.name) + "}";
    }
  }
  out_ += t_.meta.devices.empty() ? "]" : "\n  ]";
  static const std::set<std::string, std::less<>> ours = {"schemaVersion", "deviceProperties", "baseTimeNanoseconds",
                                                          "traceEvents", "traceName"};
  for (const auto& [key, raw] : t_.meta.extra_fields) {
    if (ours.count(key) || raw.empty()) continue;
    out_ += ",\n  ";
    out_ += jsonString(key);
    out_ += ": ";
    out_ += raw;
  }
  out_ += ",\n  \"baseTimeNanoseconds\": ";
  out_ += std::to_string(base_);
  out_ += ",\n  \"traceEvents\": [";
  metadata();
  events();
  launchFlows();
  otherFlows();
  for (const RawEvent& r : t_.raw_events) {
    if (r.json.empty() || isMemoryCounter(t_, r)) continue;
    beginEvent();
    out_ += r.json;
  }
  memoryCounters();
  out_ += first_event_ ? "]" : "\n  ]";
  if (!t_.meta.trace_name.empty()) {
    out_ += ",\n  \"traceName\": ";
    out_ += jsonString(t_.meta.trace_name);
  }
  out_ += "\n}\n";
  return std::move(out_);
}

// Per device, the allocated and reserved bytes after each memory event, on
// the process of the thread that allocated.
void Writer::memoryCounters() {
  const MemoryEvents memory = readMemoryEvents(t_);
  for (const MemoryEvent& e : memory.events) {
    if (e.total_allocated < 0) continue;
    beginEvent();
    out_ += "{\"ph\": \"C\", \"name\": ";
    out_ += jsonString(memoryCounterName(memoryDeviceLabel(e.device_type, e.device_id)));
    out_ += ", \"pid\": ";
    out_ += e.track < t_.tracks.size() ? token(t_.tracks[e.track].pid_id) : std::string("0");
    out_ += ", \"ts\": ";
    time(e.ts_ns);
    out_ += ", \"args\": {\"Allocated\": ";
    out_ += std::to_string(e.total_allocated);
    out_ += ", \"Reserved\": ";
    out_ += std::to_string(std::max<int64_t>(0, e.total_reserved));
    out_ += "}}";
  }
}

bool endsWithGz(const std::filesystem::path& path) {
  std::string s = path.filename().string();
  return s.size() >= 3 && s.compare(s.size() - 3, 3, ".gz") == 0;
}

}  // namespace

std::string exportChromeTraceToString(const Trace& trace) { return Writer(trace).run(); }

void exportChromeTrace(const Trace& trace, const std::filesystem::path& path, ExportOptions options) {
  std::string text = exportChromeTraceToString(trace);
  if (options.gzip || endsWithGz(path)) {
    try {
      text = gzipCompress(text, options.gzip_level);
    } catch (const GzipError& e) {
      throw TraceExportError(path.string() + ": " + e.what());
    }
  }
  writeFileAtomically(path, text);
}

}  // namespace fuselab
