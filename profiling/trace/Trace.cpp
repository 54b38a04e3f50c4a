#include "profiling/trace/Trace.h"

#include "profiling/trace/MemoryEvents.h"

#include <algorithm>
#include <future>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "profiling/trace/ParallelFor.h"
#include "profiling/trace/ParallelSort.h"

namespace fuselab {

namespace {
struct CategorySpelling {
  Category category;
  std::string_view name;
};
constexpr CategorySpelling kSpellings[] = {
    {Category::CpuOp, "cpu_op"},
    {Category::UserAnnotation, "user_annotation"},
    {Category::CudaRuntime, "cuda_runtime"},
    {Category::CudaDriver, "cuda_driver"},
    {Category::Kernel, "kernel"},
    {Category::Memcpy, "gpu_memcpy"},
    {Category::Memset, "gpu_memset"},
    {Category::Sync, "cuda_sync"},
    {Category::GpuAnnotation, "gpu_user_annotation"},
};

// Trace::track_index_'s key of a (pid, tid) token pair.
uint64_t trackKey(uint32_t pid_id, uint32_t tid_id) { return (uint64_t(pid_id) << 32) | tid_id; }
}  // namespace

std::string_view categoryName(Category c) {
  for (const auto& s : kSpellings)
    if (s.category == c) return s.name;
  return "other";
}

Category categoryFromName(std::string_view cat) {
  for (const auto& s : kSpellings)
    if (s.name == cat) return s.category;
  return Category::Other;
}

bool isGpuWork(Category c) {
  return c == Category::Kernel || c == Category::Memcpy || c == Category::Memset;
}

bool isLaunchCall(Category c) { return c == Category::CudaRuntime || c == Category::CudaDriver; }

StringTable::StringTable() { intern(""); }

StringTable::StringTable(const StringTable& other) : strings_(other.strings_) {
  for (uint32_t id = 0; id < strings_.size(); ++id) index_.emplace(std::string_view(strings_[id]), id);
}

StringTable& StringTable::operator=(const StringTable& other) {
  if (this != &other) *this = StringTable(other);
  return *this;
}

uint32_t StringTable::intern(std::string_view s) {
  if (auto it = index_.find(s); it != index_.end()) return it->second;
  strings_.emplace_back(s);
  auto id = static_cast<uint32_t>(strings_.size() - 1);
  index_.emplace(std::string_view(strings_.back()), id);
  return id;
}

std::optional<uint32_t> StringTable::find(std::string_view s) const {
  if (auto it = index_.find(s); it != index_.end()) return it->second;
  return std::nullopt;
}

uint32_t Trace::trackFor(std::string_view pid_token, std::string_view tid_token) {
  uint32_t pid_id = strings.intern(pid_token);
  uint32_t tid_id = strings.intern(tid_token);
  const uint64_t key = trackKey(pid_id, tid_id);
  if (auto it = track_index_.find(key); it != track_index_.end()) return it->second;
  Track t;
  t.pid_id = pid_id;
  t.tid_id = tid_id;
  auto numeric = [](std::string_view tok, int64_t& out) {
    if (tok.empty()) return;
    char* end = nullptr;
    std::string tmp(tok);
    long long v = std::strtoll(tmp.c_str(), &end, 10);
    if (end && *end == '\0') out = v;
  };
  numeric(pid_token, t.pid);
  numeric(tid_token, t.tid);
  tracks.push_back(std::move(t));
  auto idx = static_cast<uint32_t>(tracks.size() - 1);
  track_index_.emplace(key, idx);
  return idx;
}

void Trace::reindexTracks() {
  track_index_.clear();
  for (uint32_t ti = 0; ti < tracks.size(); ++ti)
    track_index_.emplace(trackKey(tracks[ti].pid_id, tracks[ti].tid_id), ti);
}

void Track::reserve(size_t events) {
  start_ns.reserve(events);
  dur_ns.reserve(events);
  name_id.reserve(events);
  cat_id.reserve(events);
  category.reserve(events);
  depth.reserve(events);
  correlation.reserve(events);
  external_id.reserve(events);
  args.reserve(events);
}

uint32_t Trace::append(uint32_t track, const NewEvent& e) {
  Track& t = tracks[track];
  t.start_ns.push_back(e.start_ns);
  t.dur_ns.push_back(std::max<int64_t>(0, e.dur_ns));
  t.name_id.push_back(e.name_id);
  t.cat_id.push_back(e.cat_id);
  t.category.push_back(e.category);
  t.depth.push_back(0);
  t.correlation.push_back(e.correlation);
  t.external_id.push_back(e.external_id);
  t.args.push_back(e.args);
  return static_cast<uint32_t>(t.size() - 1);
}

ArgsRef Trace::addArgs(std::string_view json_object) {
  if (json_object.empty()) return {};
  ArgsRef r{args_text->size(), static_cast<uint32_t>(json_object.size())};
  args_text->append(json_object);
  return r;
}

std::string_view Trace::argsJson(ArgsRef r) const {
  if (r.length == 0) return {};
  const std::string* text = args_text.get();
  uint64_t offset = r.offset;
  if (offset >= kSharedArgsStride) {
    const uint64_t k = offset / kSharedArgsStride - 1;
    text = k < shared_args.size() ? shared_args[k].get() : nullptr;
    offset %= kSharedArgsStride;
  }
  if (!text || offset + r.length > text->size()) return {};
  return std::string_view(*text).substr(offset, r.length);
}

uint64_t Trace::argsBytes() const {
  uint64_t n = args_text ? args_text->size() : 0;
  for (const auto& text : shared_args) n += text ? text->size() : 0;
  return n;
}

namespace {

// Parents before children: earlier start first, longer first on ties, else
// as appended. Events listed out of order sort as (start, index) pairs side
// by side, which stay in cache where looking through the columns did not; a
// track already in order is not sorted (empty: the order as it is).
std::vector<uint32_t> eventOrder(const Track& t) {
  auto before = [&](uint32_t a, uint32_t b) {
    if (t.start_ns[a] != t.start_ns[b]) return t.start_ns[a] < t.start_ns[b];
    if (t.dur_ns[a] != t.dur_ns[b]) return t.dur_ns[a] > t.dur_ns[b];
    return a < b;
  };
  bool in_order = true;
  for (uint32_t i = 1; i < t.size() && in_order; ++i) in_order = !before(i, i - 1);
  if (in_order) return {};
  std::vector<uint32_t> order(t.size());
  struct Key {
    int64_t start;
    uint32_t index;
  };
  std::vector<Key> keys(t.size());
  for (uint32_t i = 0; i < keys.size(); ++i) keys[i] = {t.start_ns[i], i};
  parallelSort(keys, [&](const Key& a, const Key& b) {
    return a.start != b.start ? a.start < b.start : before(a.index, b.index);
  });
  for (size_t i = 0; i < keys.size(); ++i) order[i] = keys[i].index;
  return order;
}

template <typename T>
void permute(std::vector<T>& v, const std::vector<uint32_t>& order) {
  std::vector<T> out;
  out.reserve(v.size());
  for (uint32_t i : order) out.push_back(v[i]);
  v = std::move(out);
}
}  // namespace

void Trace::finalize() {
  finalizeWith([this](bool) { buildLaunchLinks(); });
}

void Trace::finalizeCopyOf(const Trace& src, const std::vector<uint32_t>& track_of) {
  finalizeWith([&](bool reordered) {
    if (reordered) buildLaunchLinks();
    else copyLaunchLinks(src, track_of);
  });
}

void Trace::finalizeWith(const std::function<void(bool reordered)>& make_links) {
  // Tracks are independent: each is put in order on its own core (a merged
  // run has hundreds).
  std::vector<std::vector<uint32_t>> new_index(tracks.size()), orders(tracks.size());
  parallelFor(tracks.size(), [&](size_t ti) {
    Track& t = tracks[ti];
    std::vector<uint32_t> order = eventOrder(t);
    if (order.empty()) return;  // in order already: flows keep their indices
    new_index[ti].resize(order.size());
    for (uint32_t pos = 0; pos < order.size(); ++pos) new_index[ti][order[pos]] = pos;
    permute(t.category, order);
    permute(t.correlation, order);
    orders[ti] = std::move(order);
  });
  for (Flow& f : flows) {
    if (f.from.track < new_index.size() && f.from.index < new_index[f.from.track].size())
      f.from.index = new_index[f.from.track][f.from.index];
    if (f.to.track < new_index.size() && f.to.index < new_index[f.to.track].size())
      f.to.index = new_index[f.to.track][f.to.index];
  }
  new_index = {};
  // The launch links need only those two columns: they are built on a
  // second thread while the other columns are put in order.
  const bool reordered = std::any_of(orders.begin(), orders.end(), [](const auto& o) { return !o.empty(); });
  std::future<void> links = std::async(std::launch::async, [&] { make_links(reordered); });
  // Each column of each track on its own core (a trace has few large tracks).
  constexpr size_t kColumns = 6;
  parallelFor(tracks.size() * kColumns, [&](size_t k) {
    Track& t = tracks[k / kColumns];
    const std::vector<uint32_t>& order = orders[k / kColumns];
    if (order.empty()) return;
    switch (k % kColumns) {
      case 0: permute(t.start_ns, order); break;
      case 1: permute(t.dur_ns, order); break;
      case 2: permute(t.name_id, order); break;
      case 3: permute(t.cat_id, order); break;
      case 4: permute(t.external_id, order); break;
      default: permute(t.args, order); break;
    }
  });
  orders = {};
  parallelFor(tracks.size(), [&](size_t ti) {
    Track& t = tracks[ti];

    // Depth: an event nests in the open event that contains it; one that only
    // partly overlaps goes one row further down so nothing is hidden.
    std::vector<int64_t> open_end;  // end time of the open event at each depth
    t.max_depth = 0;
    bool any_gpu = false;
    for (size_t i = 0; i < t.size(); ++i) {
      int64_t s = t.start_ns[i], e = t.end_ns(i);
      while (!open_end.empty() && open_end.back() <= s) open_end.pop_back();
      if (!open_end.empty() && e > open_end.back()) {
        // Partial overlap: find the first depth whose open event has ended.
        size_t d = open_end.size();
        open_end.push_back(e);
        t.depth[i] = static_cast<uint16_t>(std::min<size_t>(d, UINT16_MAX));
      } else {
        t.depth[i] = static_cast<uint16_t>(std::min<size_t>(open_end.size(), UINT16_MAX));
        open_end.push_back(e);
      }
      t.max_depth = std::max(t.max_depth, t.depth[i]);
      // cuda_sync events sit on the device/stream track (Kineto does the same).
      if (isGpuWork(t.category[i]) || t.category[i] == Category::GpuAnnotation || t.category[i] == Category::Sync)
        any_gpu = true;
    }
    if (any_gpu) {
      t.kind = TrackKind::Gpu;
      if (t.device < 0) t.device = static_cast<int>(t.pid);
      if (t.stream < 0) t.stream = t.tid;
    } else {
      bool numeric_pid = strings.get(t.pid_id).find('"') == std::string_view::npos;
      bool any_cpu = false;
      for (auto c : t.category)
        if (c != Category::Other) any_cpu = true;
      t.kind = (numeric_pid && (any_cpu || t.size() == 0)) ? TrackKind::Cpu : TrackKind::Other;
    }
  });
  links.get();
}

const LaunchLink* Trace::launchFor(int64_t correlation) const {
  const uint32_t at = launch_index_.find(correlation);
  return at == CorrelationIndex::kNone ? nullptr : &launches_[at];
}

size_t Trace::eventCount() const {
  size_t n = 0;
  for (const auto& t : tracks) n += t.size();
  return n;
}

int64_t Trace::beginNs() const {
  bool any = false;
  int64_t b = 0;
  for (const auto& t : tracks)
    if (t.size() && (!any || t.start_ns.front() < b)) b = t.start_ns.front(), any = true;
  return b;
}

int64_t Trace::endNs() const {
  int64_t e = 0;
  bool any = false;
  for (const auto& t : tracks)
    for (size_t i = 0; i < t.size(); ++i)
      if (!any || t.end_ns(i) > e) e = t.end_ns(i), any = true;
  return e;
}

namespace {

// Args compare as JSON values (key order and spacing do not matter). An
// event without args equals one whose args only repeat its columns
// (correlation, External id, device, stream): that is what export writes for
// events that had none.
bool sameArgs(std::string_view a, std::string_view b, const Track& ta, size_t i) {
  if (a == b) return true;
  if (!a.empty() && !b.empty()) {
    auto ja = nlohmann::json::parse(a, nullptr, false);
    auto jb = nlohmann::json::parse(b, nullptr, false);
    return !ja.is_discarded() && !jb.is_discarded() && ja == jb;
  }
  auto j = nlohmann::json::parse(a.empty() ? b : a, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return false;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_number_integer()) return false;
    auto v = it.value().get<int64_t>();
    const std::string& k = it.key();
    bool ok = (k == "correlation" && v == ta.correlation[i]) || (k == "External id" && v == ta.external_id[i]) ||
              (k == "device" && v == ta.device) || (k == "stream" && v == ta.stream);
    if (!ok) return false;
  }
  return true;
}

bool sameJson(std::string_view a, std::string_view b) {
  if (a == b) return true;
  auto ja = nlohmann::json::parse(a, nullptr, false);
  auto jb = nlohmann::json::parse(b, nullptr, false);
  return !ja.is_discarded() && !jb.is_discarded() && ja == jb;
}

}  // namespace

bool Trace::sameContentAs(const Trace& o, std::string* why) const {
  auto fail = [&](const std::string& msg) {
    if (why) *why = msg;
    return false;
  };
  // Tracks without events are not content (a producer may create them early).
  if (nonEmptyTrackCount() != o.nonEmptyTrackCount())
    return fail("track count " + std::to_string(nonEmptyTrackCount()) + " vs " + std::to_string(o.nonEmptyTrackCount()));
  if (meta.base_time_ns != o.meta.base_time_ns) return fail("baseTimeNanoseconds differs");
  if (meta.schema_version != o.meta.schema_version) return fail("schemaVersion differs");
  if (meta.trace_name != o.meta.trace_name) return fail("traceName differs");
  if (meta.devices.size() != o.meta.devices.size()) return fail("deviceProperties count differs");
  for (size_t d = 0; d < meta.devices.size(); ++d) {
    const auto &da = meta.devices[d], &db = o.meta.devices[d];
    bool both_json = !da.json.empty() && !db.json.empty();  // a capture may give only id and name
    if (da.id != db.id || da.name != db.name || (both_json && !sameJson(da.json, db.json)))
      return fail("deviceProperties[" + std::to_string(d) + "] differs");
  }
  if (meta.extra_fields.size() != o.meta.extra_fields.size()) return fail("top-level field count differs");
  for (size_t k = 0; k < meta.extra_fields.size(); ++k) {
    const auto &fa = meta.extra_fields[k], &fb = o.meta.extra_fields[k];
    if (fa.first != fb.first || !sameJson(fa.second, fb.second)) return fail("top-level field \"" + fa.first + "\" differs");
  }
  // Tracks are matched by their pid/tid tokens, not by position.
  std::vector<int64_t> other_of(tracks.size(), -1);
  for (size_t ti = 0; ti < tracks.size(); ++ti) {
    const Track& a = tracks[ti];
    if (a.size() == 0) continue;
    const Track* bp = nullptr;
    for (size_t tj = 0; tj < o.tracks.size(); ++tj) {
      const Track& cand = o.tracks[tj];
      if (cand.size() > 0 && o.strings.get(cand.pid_id) == strings.get(a.pid_id) &&
          o.strings.get(cand.tid_id) == strings.get(a.tid_id)) {
        bp = &cand;
        other_of[ti] = static_cast<int64_t>(tj);
      }
    }
    std::string label = std::string(strings.get(a.pid_id)) + "/" + std::string(strings.get(a.tid_id));
    if (!bp) return fail("track " + label + " missing");
    const Track& b = *bp;
    if (a.kind != b.kind) return fail("track " + label + " kind differs");
    if (strings.get(a.process_name_id) != o.strings.get(b.process_name_id) ||
        strings.get(a.thread_name_id) != o.strings.get(b.thread_name_id))
      return fail("track " + label + " names differ");
    if (strings.get(a.process_labels_id) != o.strings.get(b.process_labels_id)) return fail("track " + label + " labels differ");
    if (a.sort_index != b.sort_index) return fail("track " + label + " sort index differs");
    if (a.kind == TrackKind::Gpu && (a.device != b.device || a.stream != b.stream))
      return fail("track " + label + " device/stream differs");
    if (a.size() != b.size())
      return fail("track " + label + " has " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " events");
    for (size_t i = 0; i < a.size(); ++i) {
      std::string at = "track " + label + " event " + std::to_string(i) + " (" +
                       std::string(strings.get(a.name_id[i])) + ")";
      if (a.start_ns[i] != b.start_ns[i]) return fail(at + " start differs");
      if (a.dur_ns[i] != b.dur_ns[i]) return fail(at + " duration differs");
      if (strings.get(a.name_id[i]) != o.strings.get(b.name_id[i])) return fail(at + " name differs");
      if (strings.get(a.cat_id[i]) != o.strings.get(b.cat_id[i])) return fail(at + " category differs");
      if (a.category[i] != b.category[i]) return fail(at + " category kind differs");
      if (a.depth[i] != b.depth[i]) return fail(at + " depth differs");
      if (a.correlation[i] != b.correlation[i]) return fail(at + " correlation differs");
      if (a.external_id[i] != b.external_id[i]) return fail(at + " external id differs");
      if (!sameArgs(argsJson(a.args[i]), o.argsJson(b.args[i]), a, i)) return fail(at + " args differ");
    }
  }
  if (flows.size() != o.flows.size()) return fail("flow count differs");
  auto flowTs = [](const Trace& t, EventRef r, int64_t stored) {
    return stored >= 0 ? stored : t.tracks[r.track].start_ns[r.index];
  };
  for (size_t k = 0; k < flows.size(); ++k) {
    const Flow &fa = flows[k], &fb = o.flows[k];
    std::string at = "flow " + std::to_string(k);
    if (fa.id != fb.id || strings.get(fa.cat_id) != o.strings.get(fb.cat_id) ||
        strings.get(fa.name_id) != o.strings.get(fb.name_id))
      return fail(at + " id/category/name differs");
    for (auto [ea, eb, ta, tb] : {std::tuple{fa.from, fb.from, fa.from_ts_ns, fb.from_ts_ns},
                                  std::tuple{fa.to, fb.to, fa.to_ts_ns, fb.to_ts_ns}}) {
      if (ea.track >= tracks.size() || other_of[ea.track] != int64_t(eb.track) || ea.index != eb.index)
        return fail(at + " binds to different events");
      if (flowTs(*this, ea, ta) != flowTs(o, eb, tb)) return fail(at + " time differs");
    }
  }
  // Memory counters are derived: export writes them afresh (MemoryEvents.h).
  auto kept = [](const Trace& t) {
    std::vector<const RawEvent*> out;
    for (const RawEvent& r : t.raw_events)
      if (!isMemoryCounter(t, r)) out.push_back(&r);
    return out;
  };
  const auto raw_a = kept(*this), raw_b = kept(o);
  if (raw_a.size() != raw_b.size()) return fail("raw (non-X) event count differs");
  for (size_t k = 0; k < raw_a.size(); ++k) {
    const RawEvent &ra = *raw_a[k], &rb = *raw_b[k];
    if (ra.phase != rb.phase || ra.ts_ns != rb.ts_ns || strings.get(ra.name_id) != o.strings.get(rb.name_id) ||
        !sameJson(ra.json, rb.json))
      return fail("raw event " + std::to_string(k) + " differs");
  }
  if (launches_.size() != o.launches_.size()) return fail("launch link count differs");
  return true;
}

size_t Trace::nonEmptyTrackCount() const {
  size_t n = 0;
  for (const auto& t : tracks) n += t.size() > 0;
  return n;
}

}  // namespace fuselab
