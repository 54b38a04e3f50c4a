// The traces a critical path (CriticalPath.h) reads its events' names, ranks
// and launches from: one trace (a capture, a merged run), or a run's ranks
// seen as the tracks of their merge without merging them. RunMerge.h lays
// each rank's tracks after the ranks before it, keeps every event's index
// and moves each rank's clock by its offset; so do these tracks. A run's
// path is then read with no merge at all (`fuselab analyze DIR`).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "profiling/trace/Run.h"

namespace fuselab {

class PathTraces {
 public:
  explicit PathTraces(const Trace& trace);
  // Every rank whose events were kept; offsets_ns: one per rank position.
  PathTraces(const Run& run, const std::vector<int64_t>& offsets_ns);

  size_t trackCount() const { return track_source_.size(); }
  const Track& track(uint32_t t) const { return sourceOf(t).trace->tracks[t - sourceOf(t).first_track]; }
  // Track::rank of one trace; the rank of a run's rank.
  int rank(uint32_t t) const { return sourceOf(t).rank >= 0 ? sourceOf(t).rank : track(t).rank; }
  std::string_view name(EventRef e) const { return sourceOf(e.track).trace->strings.get(track(e.track).name_id[e.index]); }
  // The earliest event's start on the aligned clock (Trace::beginNs of the merge).
  int64_t beginNs() const;
  // Where the merge puts each rank position's tracks (MergedRun::track_of).
  std::vector<std::vector<uint32_t>> trackOf() const;

  // The traces, in track order: their tracks begin at firstTrack.
  size_t sourceCount() const { return sources_.size(); }
  const Trace& source(size_t s) const { return *sources_[s].trace; }
  uint32_t firstTrack(size_t s) const { return sources_[s].first_track; }
  // The source of track t.
  size_t sourceIndex(uint32_t t) const { return track_source_[t]; }

 private:
  struct Source {
    const Trace* trace = nullptr;
    uint32_t first_track = 0;
    int64_t offset_ns = 0;
    int rank = -1;  // -1: each track's own Track::rank
  };
  const Source& sourceOf(uint32_t t) const { return sources_[track_source_[t]]; }

  std::vector<Source> sources_;
  std::vector<uint32_t> track_source_;
  std::vector<size_t> source_of_rank_pos_;  // SIZE_MAX: a rank without events (run only)
};

}  // namespace fuselab
