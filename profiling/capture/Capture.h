// One live capture run: warm up, record N steps with the dispatch collector
// (CPU) and the CUPTI collector (GPU, when available), synchronize, stop,
// flush and merge both into one Trace. Knows nothing about workloads: the
// caller hands in what one forward is. See ../shared/DESIGN.md ("Capture").
#pragma once

#include "profiling/capture_api/CaptureTypes.h"

namespace fuselab {

// Runs the capture on the calling thread. Throws CaptureError for bad options
// or when another capture is recording; exceptions from forward() or
// synchronize() propagate after both collectors are stopped.
CaptureResult runCapture(const CaptureTarget& target, const CaptureOptions& options,
                         CaptureProgress* progress = nullptr);

}  // namespace fuselab
