// The critical path of a run (CriticalPath.h), over its merged trace or
// over its ranks' own traces: the matched collectives become dependencies
// across ranks (each member ends after the last one arrived), so a step's
// path can pass through the late rank's work before a collective.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "profiling/analysis/critical_path/CriticalPath.h"
#include "profiling/analysis/critical_path/CriticalPathGraph.h"
#include "profiling/analysis/run/RunAnalysis.h"
#include "profiling/trace/RunMerge.h"

namespace fuselab {

// The run's matched collectives, their members as events of the merged
// trace (track_of: MergedRun::track_of).
std::vector<CollectiveDependency> collectiveDependencies(const RunAnalysis& analysis,
                                                         const std::vector<std::vector<uint32_t>>& track_of);
inline std::vector<CollectiveDependency> collectiveDependencies(const RunAnalysis& analysis, const MergedRun& merged) {
  return collectiveDependencies(analysis, merged.track_of);
}

// parts: each rank's part of the graph (StreamedRun::path_parts), joined
// rather than built again over the merged trace; empty: built over it.
CriticalPathAnalysis analyzeRunCriticalPath(const RunAnalysis& analysis, const MergedRun& merged,
                                            const CriticalPathOptions& options = {},
                                            const std::vector<std::shared_ptr<const CriticalPathGraph>>& parts = {});

// The path of a run whose events were kept, from its ranks' parts joined on
// the aligned axis and read against the ranks' own traces as the tracks of
// their merge (PathTraces.h), with no merged trace: what `fuselab analyze
// DIR` does after the streaming pass. nullopt when the parts do not join
// (a rank without its part): then build it over the merge instead.
std::optional<CriticalPathAnalysis> runCriticalPath(const Run& run, const RunAnalysis& analysis,
                                                    const std::vector<std::shared_ptr<const CriticalPathGraph>>& parts,
                                                    const CriticalPathOptions& options = {});

}  // namespace fuselab
