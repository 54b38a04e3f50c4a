// The critical path of a run (CriticalPath.h) over its merged trace: the
// matched collectives become dependencies across ranks (each member ends
// after the last one arrived), so a step's path can pass through the late
// rank's work before a collective.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "profiling/analysis/CriticalPath.h"
#include "profiling/analysis/CriticalPathGraph.h"
#include "profiling/analysis/RunAnalysis.h"
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

// The merge of a run whose events were kept and its path, the ranks' parts
// joined while the merge runs: what `fuselab analyze DIR` does after the
// streaming pass.
struct MergedRunPath {
  MergedRun merged;
  CriticalPathAnalysis path;
};
MergedRunPath mergeRunWithPath(const Run& run, const RunAnalysis& analysis,
                               const std::vector<std::shared_ptr<const CriticalPathGraph>>& parts,
                               const CriticalPathOptions& options = {});

}  // namespace fuselab
