// Expectations about a run (several ranks of one job) rather than one trace:
// the run kinds of Expectations.h (late_rank_every_step,
// collectives_per_step), evaluated on the run and its RunAnalysis, and
// critical_path_share over the merged run (its path crosses ranks). Other
// trace kinds in the same list are checked on the lowest rank's trace.
#pragma once

#include <vector>

#include "profiling/analysis/expectations/Expectations.h"
#include "profiling/analysis/run/RunAnalysis.h"
#include "profiling/trace/Run.h"

namespace fuselab {

// `analysis` must be analyzeRun(run). Evidence refers to the lowest rank's
// trace (run.ranks.front()) for trace kinds; run kinds and the critical
// path give none.
std::vector<ExpectationResult> evaluateRunExpectations(const Run& run, const RunAnalysis& analysis,
                                                       const std::vector<Expectation>& expectations);

}  // namespace fuselab
