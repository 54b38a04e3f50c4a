// What a run keeps of one rank: all that the run's analysis and overview
// need, computed while the rank's events are in memory. A run larger than
// memory is read rank by rank (RunStreaming.h): each rank is summarised,
// then its events are dropped.
#pragma once

#include <vector>

#include "profiling/analysis/single/AnalysisOptions.h"
#include "profiling/analysis/collectives/CollectiveEvents.h"
#include "profiling/analysis/run/RankActivity.h"
#include "profiling/analysis/run/RunLateRank.h"
#include "profiling/analysis/run/RunRanks.h"
#include "profiling/trace/Run.h"

namespace fuselab {

struct RankSummary {
  std::vector<CollectiveEvent> collectives;  // findCollectives: group keys as found (the run may rekey them)
  std::vector<ArrivalCause> causes;          // what the rank did before each collective, same order
  RankStats stats;                           // without the run's figures (wait, late counts)
  RankActivityBins activity;                 // over the rank's span, its own clock
};

RankSummary summarizeRank(const RankTrace& rank, const AnalysisOptions& options);

}  // namespace fuselab
