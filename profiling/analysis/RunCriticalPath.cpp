#include "profiling/analysis/RunCriticalPath.h"

namespace fuselab {

std::vector<CollectiveDependency> collectiveDependencies(const RunAnalysis& analysis, const MergedRun& merged) {
  std::vector<CollectiveDependency> deps;
  deps.reserve(analysis.collectives.size());
  for (const CollectiveStats& c : analysis.collectives) {
    CollectiveDependency d;
    for (const CollectiveArrival& a : c.arrivals) d.members.push_back(merged.toMerged(a.rank_pos, a.event));
    if (d.members.size() > 1) deps.push_back(std::move(d));
  }
  return deps;
}

CriticalPathAnalysis analyzeRunCriticalPath(const RunAnalysis& analysis, const MergedRun& merged,
                                            const CriticalPathOptions& options) {
  return analyzeCriticalPath(merged.trace, collectiveDependencies(analysis, merged), options);
}

}  // namespace fuselab
