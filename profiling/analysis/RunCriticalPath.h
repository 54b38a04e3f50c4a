// The critical path of a run (CriticalPath.h) over its merged trace: the
// matched collectives become dependencies across ranks (each member ends
// after the last one arrived), so a step's path can pass through the late
// rank's work before a collective.
#pragma once

#include <vector>

#include "profiling/analysis/CriticalPath.h"
#include "profiling/analysis/RunAnalysis.h"
#include "profiling/trace/RunMerge.h"

namespace fuselab {

// The run's matched collectives, their members as events of `merged`.
std::vector<CollectiveDependency> collectiveDependencies(const RunAnalysis& analysis, const MergedRun& merged);

CriticalPathAnalysis analyzeRunCriticalPath(const RunAnalysis& analysis, const MergedRun& merged,
                                            const CriticalPathOptions& options = {});

}  // namespace fuselab
