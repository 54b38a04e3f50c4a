// A trace's analysis and its critical path, as `fuselab analyze` and the
// window both want them: computed side by side, the path on a thread of its
// own (it does not depend on the analysis or its options), so on a machine
// with cores to spare the path adds little to the time to an answer.
#pragma once

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/critical_path/CriticalPath.h"

namespace fuselab {

struct AnalysisWithPath {
  TraceAnalysis analysis;
  CriticalPathAnalysis critical_path;
};

// `trace` finalized; `collectives`: a merged run's (RunCriticalPath.h).
AnalysisWithPath analyzeTraceWithPath(const Trace& trace, const AnalysisOptions& options = {},
                                      const std::vector<CollectiveDependency>& collectives = {});

}  // namespace fuselab
