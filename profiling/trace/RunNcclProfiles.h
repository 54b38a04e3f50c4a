// The side files of fuselab's NCCL profiler plugin that sit beside a run's
// traces (`rank-N.nccl.json`), each given to the rank it names. A side file
// that cannot be read, names a rank the run does not hold, or holds another
// rank's communicators is named in Run::warnings and left out; the run
// opens either way.
#pragma once

#include "profiling/trace/Run.h"

namespace fuselab {

void attachNcclProfiles(Run& run);

}  // namespace fuselab
