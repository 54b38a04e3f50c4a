// The capture module's measurement (CeilingMeasurement) as the analysis's
// Ceilings, source "measured". Used by `fuselab ceilings` and the Workbench.
#pragma once

#include "profiling/analysis/work/Roofline.h"
#include "profiling/capture_api/CaptureTypes.h"

namespace fuselab {

Ceilings measuredCeilingsFrom(const CeilingMeasurement& m);

}  // namespace fuselab
