// The fuselab trace model: columnar, append-only storage of CPU and GPU events
// on one time axis. Produced by the importer and the live capture, read by
// Analysis, the exporter and the UI. See ../shared/DESIGN.md ("Trace").
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profiling/trace/CorrelationIndex.h"

namespace fuselab {

// What an event is. `Other` keeps unknown Kineto categories (the original
// text stays in Track::cat_id so it is shown and exported unchanged).
enum class Category : uint8_t {
  CpuOp,
  UserAnnotation,
  CudaRuntime,
  CudaDriver,
  Kernel,
  Memcpy,
  Memset,
  Sync,
  GpuAnnotation,
  Other,
};

std::string_view categoryName(Category c);            // Kineto spelling: "cpu_op", "gpu_memcpy", ...
Category categoryFromName(std::string_view kinetoCat);  // unknown -> Other
bool isGpuWork(Category c);                             // kernel, memcpy, memset
bool isLaunchCall(Category c);                          // cuda_runtime, cuda_driver

// Interned strings: names, categories, track labels. Id 0 is "".
class StringTable {
 public:
  StringTable();
  // The index holds views into the strings: a copy indexes its own copies
  // (a moved deque keeps its elements where they are, so moves need nothing).
  StringTable(const StringTable& other);
  StringTable& operator=(const StringTable& other);
  StringTable(StringTable&&) = default;
  StringTable& operator=(StringTable&&) = default;
  uint32_t intern(std::string_view s);
  std::string_view get(uint32_t id) const { return strings_[id]; }
  std::optional<uint32_t> find(std::string_view s) const;
  size_t size() const { return strings_.size(); }

 private:
  std::deque<std::string> strings_;  // deque: element addresses stay stable
  std::unordered_map<std::string_view, uint32_t> index_;  // views into strings_
};

// A span of JSON text (an "args" object) in Trace's args texts. Parsed on
// demand (tooltips, export) so import need not materialise every argument.
struct ArgsRef {
  uint64_t offset = 0;
  uint32_t length = 0;  // 0 = no args
};

enum class TrackKind : uint8_t { Cpu, Gpu, Other };

// One lane source: a CPU thread (pid/tid) or a GPU device+stream (pid=device,
// tid=stream in Kineto). Events are sorted by (start asc, dur desc) after
// Trace::finalize(); depth gives the sub-row of nested or overlapping events.
struct Track {
  TrackKind kind = TrackKind::Cpu;
  uint32_t pid_id = 0;  // raw JSON token text of pid / tid, interned ("644", "\"Spans\"")
  uint32_t tid_id = 0;
  int64_t pid = 0;      // numeric value where the token is a number, else 0
  int64_t tid = 0;
  uint32_t process_name_id = 0;  // from "M" metadata, or set by the capture
  uint32_t thread_name_id = 0;
  int64_t sort_index = 0;
  // As the source gave them ("M" process_labels / *_sort_index), for export;
  // sort_index above is the thread's index, else the process's, else 0.
  uint32_t process_labels_id = 0;
  std::optional<int64_t> process_sort_index;
  std::optional<int64_t> thread_sort_index;
  int device = -1;   // GPU tracks
  int64_t stream = -1;
  int rank = -1;     // the rank a merged run's track came from (RunMerge.h); -1 otherwise

  // Columns, one entry per event.
  std::vector<int64_t> start_ns;   // absolute: trace base + offset
  std::vector<int64_t> dur_ns;
  std::vector<uint32_t> name_id;
  std::vector<uint32_t> cat_id;    // interned original category text
  std::vector<Category> category;
  std::vector<uint16_t> depth;
  std::vector<int64_t> correlation;  // -1 when absent
  std::vector<int64_t> external_id;  // -1 when absent
  std::vector<ArgsRef> args;
  uint16_t max_depth = 0;

  size_t size() const { return start_ns.size(); }
  int64_t end_ns(size_t i) const { return start_ns[i] + dur_ns[i]; }
  void reserve(size_t events);  // every column
};

struct EventRef {
  uint32_t track = 0;
  uint32_t index = 0;
  bool operator==(const EventRef&) const = default;
};

// A flow edge between two events. Launch->GPU ("ac2g") flows are derived from
// the correlation column and kept in Trace::launches instead; this holds the
// other flow kinds so they survive import/export.
struct Flow {
  uint64_t id = 0;
  uint32_t cat_id = 0;
  uint32_t name_id = 0;
  EventRef from;
  EventRef to;
  // Where the source placed each end (absolute ns); -1 = at the event's start.
  int64_t from_ts_ns = -1;
  int64_t to_ts_ns = -1;
};

// Launch call -> the GPU ops it enqueued (several for a CUDA graph launch).
struct LaunchLink {
  int64_t correlation = -1;
  std::optional<EventRef> launch;  // the runtime/driver call, if captured
  std::vector<EventRef> gpu_ops;
};

// Phases other than X/M/s/f (instant "i", counters "C", ...) kept verbatim so
// nothing is dropped; shown in the UI as markers.
struct RawEvent {
  std::string json;  // the event object as it appeared in the source
  int64_t ts_ns = 0;
  uint32_t name_id = 0;
  char phase = '?';
};

struct DeviceProperties {
  int id = 0;
  std::string name;
  std::string json;  // the full object as read, for export
};

struct TraceMetadata {
  int64_t base_time_ns = 0;  // Kineto baseTimeNanoseconds; event times are base + ts
  int schema_version = 1;
  std::vector<DeviceProperties> devices;
  std::string trace_name;
  std::string source;              // file path or "live capture"
  uint64_t dropped_records = 0;    // CUPTI records lost during capture
  // Other top-level fields (trace_id, cuda_runtime_version, ...) as raw JSON text.
  std::vector<std::pair<std::string, std::string>> extra_fields;
  std::vector<std::string> warnings;  // import/capture notes shown to the user
};

class Trace {
 public:
  StringTable strings;
  std::vector<Track> tracks;
  std::vector<Flow> flows;
  std::vector<RawEvent> raw_events;
  TraceMetadata meta;
  // Backing text for ArgsRef: the trace's own, at offsets from 0. Shared so
  // a trace copy need not duplicate it.
  std::shared_ptr<std::string> args_text = std::make_shared<std::string>();
  // Other traces' texts, referred to as they are (a merged run's ranks):
  // shared_args[k] at offsets from kSharedArgsStride * (k + 1).
  std::vector<std::shared_ptr<const std::string>> shared_args;
  static constexpr uint64_t kSharedArgsStride = uint64_t(1) << 40;

  // Find or create the track for a (pid, tid) token pair.
  uint32_t trackFor(std::string_view pid_token, std::string_view tid_token);
  // Finds the tracks by their pid_id/tid_id again, after those were changed
  // in place (a rank merged alone, RunMerge.h); they must stay distinct.
  void reindexTracks();

  // Appends one complete event (any order). Returns its provisional index;
  // indices change in finalize().
  struct NewEvent {
    int64_t start_ns = 0;
    int64_t dur_ns = 0;
    uint32_t name_id = 0;
    uint32_t cat_id = 0;
    Category category = Category::Other;
    int64_t correlation = -1;
    int64_t external_id = -1;
    ArgsRef args;
  };
  uint32_t append(uint32_t track, const NewEvent& e);

  // Appends JSON object text to args_text and returns its reference.
  ArgsRef addArgs(std::string_view json_object);
  // The text `r` refers to; empty when it lies outside the texts.
  std::string_view argsJson(ArgsRef r) const;
  uint64_t argsBytes() const;  // of every text, own and shared

  // Sorts every track, assigns depths (overlaps get sub-rows, never dropped),
  // classifies tracks, and rebuilds launch links. Call after appending.
  // Flow endpoints given as provisional indices are remapped.
  void finalize();
  // The same for a trace whose tracks copy `src`'s in order (track_of: src's
  // track -> track here) with the same correlation ids (a merge of one rank):
  // src's launch links are taken over instead of rebuilt, unless a track had
  // to be put in order.
  void finalizeCopyOf(const Trace& src, const std::vector<uint32_t>& track_of);

  // After finalize():
  const std::vector<LaunchLink>& launches() const { return launches_; }
  const LaunchLink* launchFor(int64_t correlation) const;
  size_t eventCount() const;
  int64_t beginNs() const;  // earliest start over all tracks (0 if empty)
  int64_t endNs() const;    // latest end
  std::string_view name(EventRef r) const { return strings.get(tracks[r.track].name_id[r.index]); }

  // Equality of content (used by the round-trip tests): same non-empty
  // tracks, events, args (as JSON values; no args == args that only repeat
  // the columns), flows, raw events and metadata.
  bool sameContentAs(const Trace& other, std::string* why = nullptr) const;
  size_t nonEmptyTrackCount() const;

 private:
  // Orders the tracks and sets depths and kinds; the launch links are made
  // by `links` meanwhile, told whether any track was reordered.
  void finalizeWith(const std::function<void(bool reordered)>& links);
  void buildLaunchLinks();  // part of finalize() (TraceLaunchLinks.cpp)
  void copyLaunchLinks(const Trace& src, const std::vector<uint32_t>& track_of);
  std::vector<LaunchLink> launches_;
  CorrelationIndex launch_index_;
  std::unordered_map<uint64_t, uint32_t> track_index_;  // (pid_id, tid_id) -> track
};

}  // namespace fuselab
