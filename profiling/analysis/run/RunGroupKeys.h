// Process-group keys for GPU collectives whose CPU side names no group
// (traces of other collectors, older torch): findCollectives keys them by
// stream ("stream N"). Stream ids are numbered per process, so they agree
// across ranks only when every process made the same calls; where they do
// not, the keys are rewritten so that matching can pair the collectives.
#pragma once

#include <vector>

#include "profiling/analysis/collectives/CollectiveEvents.h"
#include "profiling/trace/Run.h"

namespace fuselab {

// When some rank's "stream N" key is missing on another rank that has
// stream-keyed collectives, every stream-keyed collective of the run is
// rekeyed: "pg NAME" where the rank's distributedInfo lists exactly one
// process group, else "comm stream K" (the rank's K-th communication stream
// in order of first use). `per_rank` by position in Run::ranks.
void keyUnnamedGroups(const Run& run, std::vector<std::vector<CollectiveEvent>>& per_rank);

}  // namespace fuselab
