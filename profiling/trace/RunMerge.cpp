#include "profiling/trace/RunMerge.h"

#include <string>
#include <utility>

#include "profiling/trace/ParallelFor.h"

namespace fuselab {

namespace {

// Keeps ids of different ranks apart (ids in Kineto files stay far below 2^40).
int64_t rankId(int64_t id, size_t rank_pos) { return id < 0 ? id : id + (int64_t(rank_pos + 1) << 40); }

// Numeric pids stay numeric (so CPU threads stay CPU threads) and sort by rank.
std::string pidToken(const Track& t, std::string_view token, int rank) {
  constexpr int64_t kRankStride = 10'000'000'000;  // above any pid
  if (!token.empty() && token.front() != '"') return std::to_string(int64_t(rank + 1) * kRankStride + t.pid);
  return "\"rank " + std::to_string(rank) + " " + std::string(token.substr(1));
}

// Each string id of `from` as an id of `into` (one lookup per distinct string).
std::vector<uint32_t> stringIds(const StringTable& from, StringTable& into) {
  std::vector<uint32_t> ids(from.size());
  for (uint32_t id = 0; id < ids.size(); ++id) ids[id] = into.intern(from.get(id));
  return ids;
}

// One rank's track into its own track of the merged trace.
struct TrackCopy {
  const std::vector<uint32_t>* ids;  // the rank's string ids in the merged trace
  const Track* src;
  uint32_t dst_index;
  int64_t offset;
  uint64_t args_shift;
  size_t rank_pos;
};

void copyTrack(const TrackCopy& c, Trace& into) {
  const Track& src = *c.src;
  const std::vector<uint32_t>& ids = *c.ids;
  const int64_t offset = c.offset;
  into.tracks[c.dst_index].reserve(src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    Trace::NewEvent e;
    e.start_ns = src.start_ns[i] + offset;
    e.dur_ns = src.dur_ns[i];
    e.name_id = ids[src.name_id[i]];
    e.cat_id = ids[src.cat_id[i]];
    e.category = src.category[i];
    e.correlation = rankId(src.correlation[i], c.rank_pos);
    e.external_id = rankId(src.external_id[i], c.rank_pos);
    e.args = src.args[i].length ? ArgsRef{src.args[i].offset + c.args_shift, src.args[i].length} : ArgsRef{};
    into.append(c.dst_index, e);
  }
}

}  // namespace

MergedRun mergeRun(const Run& run, const std::vector<int64_t>& offsets_ns) {
  std::vector<const Trace*> traces;
  for (const RankTrace& r : run.ranks) traces.push_back(&r.trace);
  return mergeRun(run, traces, offsets_ns);
}

MergedRun mergeRun(const Run& run, const std::vector<const Trace*>& traces, const std::vector<int64_t>& offsets_ns) {
  MergedRun m;
  Trace& out = m.trace;
  out.meta.source = "run of " + std::to_string(run.ranks.size()) + " rank(s)";
  out.meta.warnings = run.warnings;
  m.track_of.resize(run.ranks.size());
  std::vector<std::vector<uint32_t>> rank_ids(run.ranks.size());
  std::vector<TrackCopy> copies;
  std::vector<uint8_t> dst_taken;
  bool distinct = true;  // every track copied into a track of its own: the copies can run side by side
  size_t args_bytes = 0;  // reserved at once: growing by appends copied the text over and over
  size_t sources = 0;
  for (const Trace* t : traces)
    if (t) args_bytes += t->args_text->size(), ++sources;
  // One rank alone (the lanes of a run too large to hold): its args text is
  // shared, not copied (offsets into it stay as they are).
  const bool share_args = sources == 1;
  if (!share_args) out.args_text->reserve(out.args_text->size() + args_bytes);
  // A rank's meta stays when its events are dropped.
  if (!run.ranks.empty()) out.meta.base_time_ns = run.ranks[0].trace.meta.base_time_ns + offsets_ns[0];
  for (size_t p = 0; p < run.ranks.size(); ++p) {
    if (!traces[p]) continue;
    const RankTrace& r = run.ranks[p];
    const Trace& src = *traces[p];
    const int64_t offset = offsets_ns[p];
    const uint64_t args_shift = share_args ? 0 : out.args_text->size();
    const std::vector<uint32_t>& ids = rank_ids[p] = stringIds(src.strings, out.strings);
    if (share_args) out.args_text = src.args_text;
    else out.args_text->append(*src.args_text);
    for (const std::string& w : src.meta.warnings) out.meta.warnings.push_back("rank " + std::to_string(r.rank) + ": " + w);
    for (const Track& t : src.tracks) {
      const std::string pid = pidToken(t, src.strings.get(t.pid_id), r.rank);
      const uint32_t ti = out.trackFor(pid, src.strings.get(t.tid_id));
      m.track_of[p].push_back(ti);
      Track& dst = out.tracks[ti];
      const std::string_view process = src.strings.get(t.process_name_id);
      dst.process_name_id = out.strings.intern("rank " + std::to_string(r.rank) + (process.empty() ? "" : " " + std::string(process)));
      dst.thread_name_id = ids[t.thread_name_id];
      dst.sort_index = t.sort_index;
      dst.device = t.device;
      dst.stream = t.stream;
      dst.rank = r.rank;
      copies.push_back({&ids, &t, ti, offset, args_shift, p});
      if (dst_taken.size() <= ti) dst_taken.resize(ti + 1, 0);
      distinct = distinct && !std::exchange(dst_taken[ti], uint8_t(1));
    }
    for (const Flow& f : src.flows) {
      Flow g = f;
      g.id = static_cast<uint64_t>(rankId(static_cast<int64_t>(f.id), p));
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
  if (distinct) {
    parallelFor(copies.size(), [&](size_t k) { copyTrack(copies[k], out); });
  } else {
    for (const TrackCopy& c : copies) copyTrack(c, out);
  }
  out.finalize();
  return m;
}

}  // namespace fuselab
