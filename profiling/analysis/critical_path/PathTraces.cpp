#include "profiling/analysis/critical_path/PathTraces.h"

#include <cstdint>

namespace fuselab {

PathTraces::PathTraces(const Trace& trace) {
  sources_.push_back({&trace, 0, 0, -1});
  track_source_.assign(trace.tracks.size(), 0);
  source_of_rank_pos_ = {0};
}

PathTraces::PathTraces(const Run& run, const std::vector<int64_t>& offsets_ns) {
  uint32_t next = 0;
  for (size_t p = 0; p < run.ranks.size(); ++p) {
    const RankTrace& r = run.ranks[p];
    if (r.events_dropped) {
      source_of_rank_pos_.push_back(SIZE_MAX);
      continue;
    }
    source_of_rank_pos_.push_back(sources_.size());
    sources_.push_back({&r.trace, next, p < offsets_ns.size() ? offsets_ns[p] : 0, r.rank});
    track_source_.insert(track_source_.end(), r.trace.tracks.size(), static_cast<uint32_t>(sources_.size() - 1));
    next += static_cast<uint32_t>(r.trace.tracks.size());
  }
}

int64_t PathTraces::beginNs() const {
  bool any = false;
  int64_t begin = 0;
  for (const Source& s : sources_)
    for (const Track& t : s.trace->tracks)
      if (t.size() && (!any || t.start_ns.front() + s.offset_ns < begin)) begin = t.start_ns.front() + s.offset_ns, any = true;
  return begin;
}

std::vector<std::vector<uint32_t>> PathTraces::trackOf() const {
  std::vector<std::vector<uint32_t>> out(source_of_rank_pos_.size());
  for (size_t p = 0; p < out.size(); ++p) {
    if (source_of_rank_pos_[p] == SIZE_MAX) continue;
    const Source& s = sources_[source_of_rank_pos_[p]];
    for (uint32_t t = 0; t < s.trace->tracks.size(); ++t) out[p].push_back(s.first_track + t);
  }
  return out;
}

}  // namespace fuselab
