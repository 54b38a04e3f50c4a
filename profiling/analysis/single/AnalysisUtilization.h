// Utilization: the union of in-scope GPU op intervals over the scope's span
// (AnalysisUtilization.cpp).
#pragma once

#include <cstdint>

#include "profiling/analysis/single/AnalysisScope.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct Utilization {
  int64_t busy_ns = 0;  // union over all devices and streams, clipped to the scope
  int64_t span_ns = 0;
  double fraction = 0;  // busy / span, 0 when span is 0
};
Utilization computeUtilization(const Trace& trace, const AnalysisScope& scope);

}  // namespace fuselab
