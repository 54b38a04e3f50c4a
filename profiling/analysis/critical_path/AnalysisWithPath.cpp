#include "profiling/analysis/critical_path/AnalysisWithPath.h"

namespace fuselab {

AnalysisWithPath analyzeTraceWithPath(const Trace& trace, const AnalysisOptions& options,
                                      const std::vector<CollectiveDependency>& collectives) {
  AnalysisWithPath out;
  out.critical_path = analyzeCriticalPath(trace, collectives);
  out.analysis = analyzeTrace(trace, options);
  return out;
}

}  // namespace fuselab
