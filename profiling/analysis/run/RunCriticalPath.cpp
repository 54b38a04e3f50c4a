#include "profiling/analysis/run/RunCriticalPath.h"

#include "profiling/analysis/critical_path/PathTraces.h"

namespace fuselab {

namespace {

std::optional<CriticalPathGraph> joinParts(const std::vector<std::shared_ptr<const CriticalPathGraph>>& parts,
                                           const std::vector<std::vector<uint32_t>>& track_of,
                                           const std::vector<int64_t>& offsets_ns, size_t merged_tracks,
                                           const std::vector<CollectiveDependency>& deps) {
  std::vector<const CriticalPathGraph*> each;
  for (const auto& p : parts) each.push_back(p.get());
  return CriticalPathGraph::join(each, track_of, offsets_ns, merged_tracks, deps);
}

}  // namespace

std::vector<CollectiveDependency> collectiveDependencies(const RunAnalysis& analysis,
                                                         const std::vector<std::vector<uint32_t>>& track_of) {
  std::vector<CollectiveDependency> deps;
  deps.reserve(analysis.collectives.size());
  for (const CollectiveStats& c : analysis.collectives) {
    CollectiveDependency d;
    for (const CollectiveArrival& a : c.arrivals)
      if (a.rank_pos < track_of.size() && a.event.track < track_of[a.rank_pos].size())  // a rank without events: none
        d.members.push_back({track_of[a.rank_pos][a.event.track], a.event.index});
    if (d.members.size() > 1) deps.push_back(std::move(d));
  }
  return deps;
}

CriticalPathAnalysis analyzeRunCriticalPath(const RunAnalysis& analysis, const MergedRun& merged,
                                            const CriticalPathOptions& options,
                                            const std::vector<std::shared_ptr<const CriticalPathGraph>>& parts) {
  const std::vector<CollectiveDependency> deps = collectiveDependencies(analysis, merged);
  if (!parts.empty())
    if (auto g = joinParts(parts, merged.track_of, analysis.alignment.offsets_ns, merged.trace->tracks.size(), deps))
      return analyzeCriticalPath(*merged.trace, *g, options);
  return analyzeCriticalPath(*merged.trace, deps, options);
}

std::optional<CriticalPathAnalysis> runCriticalPath(const Run& run, const RunAnalysis& analysis,
                                                    const std::vector<std::shared_ptr<const CriticalPathGraph>>& parts,
                                                    const CriticalPathOptions& options) {
  if (parts.size() != run.ranks.size()) return std::nullopt;
  const PathTraces traces(run, analysis.alignment.offsets_ns);
  const std::vector<std::vector<uint32_t>> track_of = traces.trackOf();
  std::optional<CriticalPathGraph> joined = joinParts(parts, track_of, analysis.alignment.offsets_ns,
                                                      traces.trackCount(), collectiveDependencies(analysis, track_of));
  if (!joined) return std::nullopt;
  return analyzeCriticalPath(traces, *joined, options);
}

}  // namespace fuselab
