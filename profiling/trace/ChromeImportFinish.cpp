// After the last window: base time, unended "B"s, metadata, flow binding, raw
// events in file order, and the warnings.
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "profiling/trace/ChromeTraceImporter.h"
#include "profiling/trace/ParallelFor.h"

namespace fuselab::chrome_import {

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

namespace {

// Per track, its longest event: how long before a time an event containing it may start.
std::vector<int64_t> longestEventPerTrack(const Trace& trace) {
  std::vector<int64_t> longest(trace.tracks.size(), 0);
  for (size_t ti = 0; ti < trace.tracks.size(); ++ti)
    for (int64_t d : trace.tracks[ti].dur_ns) longest[ti] = std::max(longest[ti], d);
  return longest;
}

// A flow end's thread, launch link and event, as looked up before pairing.
struct ResolvedEnd {
  uint32_t track = std::numeric_limits<uint32_t>::max();  // none: no such thread
  const LaunchLink* link = nullptr;  // the launch its id names, for an "ac2g" end
  std::optional<uint32_t> index;     // the event it binds to
};

struct BoundEnd {
  const FlowEnd* end;
  EventRef event;
};

// Ends the exporter would not re-create from the correlation column, per
// (category, id) in file order: the 's' ends, then the 'f' ends.
using EndsByKey = std::map<std::pair<uint32_t, uint64_t>, std::pair<std::vector<BoundEnd>, std::vector<BoundEnd>>>;

inline void keepRawEnd(std::vector<RawPending>& raw_pending, const FlowEnd& e) {
  raw_pending.push_back(RawPending{e.begin, e.end, e.text_at, e.ts, e.name_id, e.phase});
}

// The launch flow ends already recognised: per launch link, its 's' at
// the launch call and an 'f' at each of its GPU ops (flags, not a set of
// millions of nodes: the link, found by id, names the events).
class LaunchFlowEnds {
 public:
  explicit LaunchFlowEnds(const Trace& trace)
      : trace_(trace), links_(trace.launches()), first_op_seen_(links_.size() + 1, 0) {
    for (size_t l = 0; l < links_.size(); ++l) first_op_seen_[l + 1] = first_op_seen_[l] + links_[l].gpu_ops.size();
    launch_seen_.assign(links_.size(), 0);
    op_seen_.assign(first_op_seen_.back(), 0);
  }

  // Launch -> GPU op flows are written by the exporter from the correlation
  // column: one 's' at the launch call's start, one 'f' ("bp":"e") at each
  // GPU op's start. Those are not stored as flows. Only one end per place
  // is the exporter's: a second identical one belongs to a stored flow.
  bool isLaunchFlowEnd(const FlowEnd& e, const ResolvedEnd& found, int64_t ts) {
    const LaunchLink* link = found.link;
    const uint32_t track = found.track;
    if (!link || !link->launch || link->gpu_ops.empty()) return false;
    const size_t l = size_t(link - links_.data());
    auto at = [&](EventRef r) { return r.track == track && trace_.tracks[r.track].start_ns[r.index] == ts; };
    auto firstAt = [](uint8_t& seen) { return !std::exchange(seen, uint8_t(1)); };
    if (e.phase == 's') return at(*link->launch) && firstAt(launch_seen_[l]);
    if (!e.enclosing) return false;
    // GPU ops of one launch may start at the same time on one stream.
    for (size_t k = 0; k < link->gpu_ops.size(); ++k)
      if (at(link->gpu_ops[k]) && firstAt(op_seen_[first_op_seen_[l] + k])) return true;
    return false;
  }

 private:
  const Trace& trace_;
  const std::vector<LaunchLink>& links_;
  std::vector<size_t> first_op_seen_;  // where each link's 'f' flags begin
  std::vector<uint8_t> launch_seen_, op_seen_;
};

// The k-th 's' of a (category, id) pairs with its k-th 'f'. The flows go to
// `flows_out` in the file order of their 's'; ends left without a partner
// are kept as raw events.
void pairEnds(const EndsByKey& by_key, int64_t base, std::vector<Flow>& flows_out,
              std::vector<RawPending>& raw_pending) {
  std::vector<std::pair<size_t, Flow>> flows;
  for (const auto& [key, lists] : by_key) {
    const auto& [starts, finishes] = lists;
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
    for (size_t k = pairs; k < starts.size(); ++k) keepRawEnd(raw_pending, *starts[k].end);
    for (size_t k = pairs; k < finishes.size(); ++k) keepRawEnd(raw_pending, *finishes[k].end);
  }
  std::sort(flows.begin(), flows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  flows_out.reserve(flows.size());
  for (auto& [pos, flow] : flows) flows_out.push_back(flow);
}

}  // namespace

void Importer::bindFlows(int64_t base) {
  const std::vector<int64_t> longest = longestEventPerTrack(trace_);
  const std::optional<uint32_t> ac2g = trace_.strings.find("ac2g");
  // Each end's thread, launch link and event, looked up side by side: in
  // file order the lookups hop around the tracks when the events are not in
  // time order (a shuffled trace spent 5% of its import here, on one thread).
  std::vector<ResolvedEnd> resolved(flow_ends_.size());
  constexpr size_t kChunk = 8192;
  parallelFor((flow_ends_.size() + kChunk - 1) / kChunk, [&](size_t chunk) {
    for (size_t k = chunk * kChunk; k < std::min(flow_ends_.size(), (chunk + 1) * kChunk); ++k) {
      const FlowEnd& e = flow_ends_[k];
      const auto track = track_by_tokens_.find((uint64_t(e.pid_id) << 32) | e.tid_id);
      if (track == track_by_tokens_.end()) continue;
      ResolvedEnd& r = resolved[k];
      r.track = track->second;
      if (ac2g && e.cat_id == *ac2g && e.name_is_ac2g && e.id <= uint64_t(std::numeric_limits<int64_t>::max()))
        r.link = trace_.launchFor(static_cast<int64_t>(e.id));
      const Track& t = trace_.tracks[r.track];
      const int64_t ts = e.ts + base;
      r.index = e.enclosing ? enclosingEvent(t, ts, longest[r.track]) : nextEvent(t, ts);
    }
  });
  LaunchFlowEnds launch_ends(trace_);
  EndsByKey by_key;
  size_t dangling = 0;
  for (size_t k = 0; k < flow_ends_.size(); ++k) {
    const FlowEnd& e = flow_ends_[k];
    const ResolvedEnd& r = resolved[k];
    if (launch_ends.isLaunchFlowEnd(e, r, e.ts + base)) continue;
    if (!r.index) {
      ++dangling;
      keepRawEnd(raw_pending_, e);
      continue;
    }
    EventRef ref{r.track, *r.index};
    auto& lists = by_key[{e.cat_id, e.id}];
    (e.phase == 's' ? lists.first : lists.second).push_back(BoundEnd{&e, ref});
  }
  pairEnds(by_key, base, trace_.flows, raw_pending_);
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
      raw_pending_.push_back(RawPending{b.begin, b.end, b.text_at, b.ev.start_ns, b.ev.name_id, 'B'});
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
      raw_pending_.push_back(RawPending{m.begin, m.end, m.text_at, m.ts, m.name_id, 'M'});
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
    raw.json.assign(raw_text_.get(r.text_at, r.end - r.begin));
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

}  // namespace fuselab::chrome_import
