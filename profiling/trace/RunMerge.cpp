#include "profiling/trace/RunMerge.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "profiling/trace/ParallelFor.h"

namespace fuselab {

namespace {

// Keeps ids of different ranks apart (ids in Kineto files stay far below
// 2^40). SIZE_MAX: one rank alone, whose ids stay as they are.
constexpr size_t kAlone = SIZE_MAX;
int64_t rankId(int64_t id, size_t rank_pos) {
  return id < 0 || rank_pos == kAlone ? id : id + (int64_t(rank_pos + 1) << 40);
}

// Numeric pids stay numeric (so CPU threads stay CPU threads) and sort by rank.
std::string pidToken(const Track& t, std::string_view token, int rank) {
  constexpr int64_t kRankStride = 10'000'000'000;  // above any pid
  if (!token.empty() && token.front() != '"') return std::to_string(int64_t(rank + 1) * kRankStride + t.pid);
  return "\"rank " + std::to_string(rank) + " " + std::string(token.substr(1));
}

std::string rankProcessName(int rank, std::string_view process) {
  return "rank " + std::to_string(rank) + (process.empty() ? "" : " " + std::string(process));
}

std::string rankWarning(int rank, const std::string& warning) { return "rank " + std::to_string(rank) + ": " + warning; }

// The merged trace's metadata before any rank's warnings are added.
TraceMetadata mergedMeta(const Run& run, const std::vector<int64_t>& offsets_ns) {
  TraceMetadata meta;
  meta.source = "run of " + std::to_string(run.ranks.size()) + " rank(s)";
  meta.warnings = run.warnings;
  // A rank's meta stays when its events are dropped.
  if (!run.ranks.empty()) meta.base_time_ns = run.ranks[0].trace.meta.base_time_ns + offsets_ns[0];
  return meta;
}

// Each string id of `from` as an id of `into` (one lookup per distinct string).
std::vector<uint32_t> stringIds(const StringTable& from, StringTable& into) {
  std::vector<uint32_t> ids(from.size());
  for (uint32_t id = 0; id < ids.size(); ++id) ids[id] = into.intern(from.get(id));
  return ids;
}

// Where a rank's args texts sit among the merged trace's shared ones: its
// own text, then each it shares, as one offset shift per text.
struct ArgsShift {
  std::vector<uint64_t> shift;  // [0]: its own text; [k + 1]: its shared_args[k]
  ArgsRef operator()(ArgsRef r) const {
    if (r.length == 0) return {};
    const uint64_t text = r.offset / Trace::kSharedArgsStride;
    return text < shift.size() ? ArgsRef{r.offset + shift[text], r.length} : ArgsRef{};
  }
};

// Shares src's args texts into `into` (none is copied).
ArgsShift shareArgs(const Trace& src, Trace& into) {
  ArgsShift s;
  auto share = [&](std::shared_ptr<const std::string> text, uint64_t was_at) {
    into.shared_args.push_back(std::move(text));
    s.shift.push_back(Trace::kSharedArgsStride * into.shared_args.size() - was_at);
  };
  share(src.args_text, 0);
  for (size_t k = 0; k < src.shared_args.size(); ++k) share(src.shared_args[k], Trace::kSharedArgsStride * (k + 1));
  return s;
}

// One rank's track into its own track of the merged trace.
struct TrackCopy {
  const std::vector<uint32_t>* ids;  // the rank's string ids in the merged trace
  const Track* src;
  uint32_t dst_index;
  int64_t offset;
  const ArgsShift* args;
  size_t id_part;  // rankId's rank_pos
};

// One column of a rank's track appended to its merged track, which held
// `at` events before (each a loop the compiler vectorises where it can): the
// events Trace::append would add one by one. Depth is finalize's. Columns
// are copied side by side: a rank has few tracks, one of them most events.
constexpr size_t kTrackColumns = 9;
void copyColumn(const TrackCopy& c, size_t at, size_t column, Trace& into) {
  const Track& src = *c.src;
  Track& dst = into.tracks[c.dst_index];
  const size_t n = src.size();
  auto copy = [&](const auto& from, auto& to, auto&& f) {
    to.resize(at + n);
    for (size_t i = 0; i < n; ++i) to[at + i] = f(from[i]);
  };
  const std::vector<uint32_t>& ids = *c.ids;
  const int64_t offset = c.offset;
  switch (column) {
    case 0: copy(src.start_ns, dst.start_ns, [&](int64_t t) { return t + offset; }); break;
    case 1: copy(src.dur_ns, dst.dur_ns, [](int64_t d) { return d; }); break;
    case 2: copy(src.name_id, dst.name_id, [&](uint32_t id) { return ids[id]; }); break;
    case 3: copy(src.cat_id, dst.cat_id, [&](uint32_t id) { return ids[id]; }); break;
    case 4: copy(src.category, dst.category, [](Category k) { return k; }); break;
    case 5: dst.depth.resize(at + n, 0); break;
    case 6: copy(src.correlation, dst.correlation, [&](int64_t id) { return rankId(id, c.id_part); }); break;
    case 7: copy(src.external_id, dst.external_id, [&](int64_t id) { return rankId(id, c.id_part); }); break;
    default: copy(src.args, dst.args, [&](ArgsRef r) { return (*c.args)(r); }); break;
  }
}

}  // namespace

MergedRun mergeRun(const Run& run, const std::vector<int64_t>& offsets_ns) {
  std::vector<MergeSource> sources;
  for (const RankTrace& r : run.ranks) sources.push_back({&r.trace});
  return mergeRun(run, sources, offsets_ns);
}

MergedRun mergeRun(const Run& run, const std::vector<MergeSource>& sources, const std::vector<int64_t>& offsets_ns) {
  MergedRun m;
  Trace out;
  out.meta = mergedMeta(run, offsets_ns);
  m.track_of.resize(run.ranks.size());
  std::vector<std::vector<uint32_t>> rank_ids(run.ranks.size());
  std::vector<ArgsShift> rank_args(run.ranks.size());
  std::vector<TrackCopy> copies;
  std::vector<uint8_t> dst_taken;
  bool distinct = true;  // every track copied into a track of its own: the copies can run side by side
  // One rank alone (a rank's lanes, loaded again) keeps its ids, so its
  // launch links are taken over rather than rebuilt.
  const size_t given = size_t(std::count_if(sources.begin(), sources.end(), [](const MergeSource& s) { return s.trace; }));
  std::optional<size_t> alone;
  for (size_t p = 0; p < run.ranks.size(); ++p) {
    const MergeSource& source = sources[p];
    if (!source.trace) continue;
    const RankTrace& r = run.ranks[p];
    const Trace& src = *source.trace;
    const bool named = source.merged_alone;
    const int64_t offset = offsets_ns[p] - (named ? source.offset_ns : 0);
    if (given == 1) alone = p;
    const size_t id_part = given == 1 ? kAlone : p;
    const std::vector<uint32_t>& ids = rank_ids[p] = stringIds(src.strings, out.strings);
    const ArgsShift& args = rank_args[p] = shareArgs(src, out);
    // A rank merged alone holds the run's warnings, then its own, named.
    for (size_t k = named ? std::min(run.warnings.size(), src.meta.warnings.size()) : 0; k < src.meta.warnings.size(); ++k)
      out.meta.warnings.push_back(named ? src.meta.warnings[k] : rankWarning(r.rank, src.meta.warnings[k]));
    for (const Track& t : src.tracks) {
      const std::string_view pid_token = src.strings.get(t.pid_id);
      const std::string pid = named ? std::string(pid_token) : pidToken(t, pid_token, r.rank);
      const uint32_t ti = out.trackFor(pid, src.strings.get(t.tid_id));
      m.track_of[p].push_back(ti);
      Track& dst = out.tracks[ti];
      const std::string_view process = src.strings.get(t.process_name_id);
      dst.process_name_id = out.strings.intern(named ? std::string(process) : rankProcessName(r.rank, process));
      dst.thread_name_id = ids[t.thread_name_id];
      dst.sort_index = t.sort_index;
      dst.device = t.device;
      dst.stream = t.stream;
      dst.rank = r.rank;
      copies.push_back({&ids, &t, ti, offset, &args, id_part});
      if (dst_taken.size() <= ti) dst_taken.resize(ti + 1, 0);
      distinct = distinct && !std::exchange(dst_taken[ti], uint8_t(1));
    }
    for (const Flow& f : src.flows) {
      Flow g = f;
      g.id = static_cast<uint64_t>(rankId(static_cast<int64_t>(f.id), id_part));
      g.cat_id = ids[f.cat_id];
      g.name_id = ids[f.name_id];
      g.from.track = m.track_of[p][f.from.track];
      g.to.track = m.track_of[p][f.to.track];
      if (g.from_ts_ns >= 0) g.from_ts_ns += offset;
      if (g.to_ts_ns >= 0) g.to_ts_ns += offset;
      out.flows.push_back(g);
    }
    for (const RawEvent& e : src.raw_events)
      out.raw_events.push_back({e.json, e.ts_ns + offset, ids[e.name_id], e.phase});
  }
  auto copyColumns = [&](size_t first, size_t count) {
    std::vector<size_t> at(count);
    for (size_t k = 0; k < count; ++k) at[k] = out.tracks[copies[first + k].dst_index].size();
    parallelFor(count * kTrackColumns, [&](size_t j) {
      copyColumn(copies[first + j / kTrackColumns], at[j / kTrackColumns], j % kTrackColumns, out);
    });
  };
  // Tracks merged into one (their events appended in turn) are copied one by one.
  if (distinct) copyColumns(0, copies.size());
  else for (size_t k = 0; k < copies.size(); ++k) copyColumns(k, 1);
  if (alone && distinct) out.finalizeCopyOf(*sources[*alone].trace, m.track_of[*alone]);
  else out.finalize();
  m.trace = std::make_shared<const Trace>(std::move(out));
  return m;
}

MergedRun mergeRankAlone(const Run& run, size_t rank_pos, Trace trace, const std::vector<int64_t>& offsets_ns) {
  const int rank = run.ranks[rank_pos].rank;
  const int64_t offset = offsets_ns[rank_pos];
  TraceMetadata meta = mergedMeta(run, offsets_ns);
  for (const std::string& w : trace.meta.warnings) meta.warnings.push_back(rankWarning(rank, w));
  trace.meta = std::move(meta);
  for (Track& t : trace.tracks) {
    const std::string pid = pidToken(t, trace.strings.get(t.pid_id), rank);
    if (pid.front() != '"') t.pid = std::stoll(pid);
    t.pid_id = trace.strings.intern(pid);
    t.process_name_id = trace.strings.intern(rankProcessName(rank, trace.strings.get(t.process_name_id)));
    // What the copy leaves behind.
    t.process_labels_id = 0;
    t.process_sort_index.reset();
    t.thread_sort_index.reset();
    t.rank = rank;
  }
  trace.reindexTracks();
  // A shift keeps every track in order, so depths and launch links stand.
  parallelFor(trace.tracks.size(), [&](size_t ti) {
    for (int64_t& start : trace.tracks[ti].start_ns) start += offset;
  });
  for (Flow& f : trace.flows) {
    if (f.from_ts_ns >= 0) f.from_ts_ns += offset;
    if (f.to_ts_ns >= 0) f.to_ts_ns += offset;
  }
  for (RawEvent& e : trace.raw_events) e.ts_ns += offset;
  MergedRun m;
  m.track_of.resize(run.ranks.size());
  m.track_of[rank_pos].resize(trace.tracks.size());
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) m.track_of[rank_pos][ti] = ti;
  m.trace = std::make_shared<const Trace>(std::move(trace));
  return m;
}

}  // namespace fuselab
