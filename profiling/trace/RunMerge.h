// One Trace holding every rank of a run on the aligned axis, for the viewer,
// screenshots and compare: each rank's tracks are copied with the rank's
// clock offset added, Track::rank set and the process named "rank N".
// Correlation and external ids are made unique per rank so launch links stay
// within a rank (one rank merged alone keeps its ids and its launch links). Event indices within a track are unchanged. The ranks'
// args texts are shared (Trace::shared_args), not copied.
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/trace/Run.h"

namespace fuselab {

struct MergedRun {
  Trace trace;  // finalized
  // track_of[rank position][track of that rank's trace] -> track in `trace`
  std::vector<std::vector<uint32_t>> track_of;

  // Whether the rank's events are in `trace` (not for ranks whose events were dropped).
  bool hasRank(size_t rank_pos) const { return rank_pos < track_of.size() && !track_of[rank_pos].empty(); }
  EventRef toMerged(size_t rank_pos, EventRef e) const { return {track_of[rank_pos][e.track], e.index}; }
};

// offsets_ns: one per position in run.ranks (aligned = own clock + offset).
MergedRun mergeRun(const Run& run, const std::vector<int64_t>& offsets_ns);

// The same with traces[p] in place of run.ranks[p].trace (a rank's events
// loaded again after they were dropped; null: the rank is left out).
MergedRun mergeRun(const Run& run, const std::vector<const Trace*>& traces, const std::vector<int64_t>& offsets_ns);

}  // namespace fuselab
