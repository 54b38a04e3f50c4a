#include "profiling/analysis/critical_path/AnalysisWithPath.h"

#include <future>

namespace fuselab {

AnalysisWithPath analyzeTraceWithPath(const Trace& trace, const AnalysisOptions& options,
                                      const std::vector<CollectiveDependency>& collectives) {
  std::future<CriticalPathAnalysis> path =
      std::async(std::launch::async, [&] { return analyzeCriticalPath(trace, collectives); });
  AnalysisWithPath out;
  out.analysis = analyzeTrace(trace, options);
  out.critical_path = path.get();
  return out;
}

}  // namespace fuselab
