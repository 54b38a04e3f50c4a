// One Trace holding every rank of a run on the aligned axis, for the viewer,
// screenshots and compare: each rank's tracks are copied with the rank's
// clock offset added, Track::rank set and the process named "rank N".
// Correlation and external ids are made unique per rank so launch links stay
// within a rank (one rank merged alone keeps its ids and its launch links).
// Event indices within a track are unchanged. The ranks' args texts are
// shared (Trace::shared_args), not copied.
//
// A rank merged alone (its lanes, loaded again) need not be copied at all:
// mergeRankAlone turns the rank's own trace into that merge in place.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "profiling/trace/Run.h"

namespace fuselab {

struct MergedRun {
  std::shared_ptr<const Trace> trace = std::make_shared<const Trace>();  // finalized; shared by copies
  // track_of[rank position][track of that rank's trace] -> track in `trace`
  std::vector<std::vector<uint32_t>> track_of;

  // Whether the rank's events are in `trace` (not for ranks whose events were dropped).
  bool hasRank(size_t rank_pos) const { return rank_pos < track_of.size() && !track_of[rank_pos].empty(); }
  EventRef toMerged(size_t rank_pos, EventRef e) const { return {track_of[rank_pos][e.track], e.index}; }
};

// offsets_ns: one per position in run.ranks (aligned = own clock + offset).
MergedRun mergeRun(const Run& run, const std::vector<int64_t>& offsets_ns);

// The same with sources[p] in place of run.ranks[p].trace (a rank's events
// loaded again after they were dropped): its own trace, or its merge alone
// (the trace of mergeRankAlone's result), already named for its rank, with
// the run's warnings first and its times on the axis of the offset it was
// merged with.
struct MergeSource {
  const Trace* trace = nullptr;  // null: the rank is left out
  bool merged_alone = false;
  int64_t offset_ns = 0;  // merged_alone: the offset its times carry
};
MergedRun mergeRun(const Run& run, const std::vector<MergeSource>& sources, const std::vector<int64_t>& offsets_ns);

// What mergeRun gives for rank position `rank_pos` alone, made of that rank's
// own trace in place (its times shifted, its tracks named for the rank)
// rather than copied: the same content, with the rank's string ids, args
// text and launch links kept.
MergedRun mergeRankAlone(const Run& run, size_t rank_pos, Trace trace, const std::vector<int64_t>& offsets_ns);

}  // namespace fuselab
