// Diagnostics: the tutorial's "what to look for" (AnalysisDiagnostics.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "profiling/analysis/single/AnalysisSteps.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

enum class DiagnosticKind : uint8_t {
  ColdStart,              // first step much longer / long dead window before its first GPU op
  OccupancyQuery,         // launches preceded by cudaOccupancyMaxActiveBlocksPerMultiprocessor
  UnrequestedDeviceCopy,  // memcpy DtoD launched from inside an op that is not a copy
  LongFinalSync,          // final synchronize much longer than the GPU work it covers
};
std::string_view diagnosticName(DiagnosticKind k);  // "cold_start", "occupancy_query", ...

struct Diagnostic {
  DiagnosticKind kind = DiagnosticKind::ColdStart;
  std::string message;
  std::vector<EventRef> evidence;  // events to select in the timeline
};

struct DiagnosticThresholds {
  double cold_start_wall_ratio = 2.0;    // first step wall vs median of the others
  double cold_start_window_ratio = 3.0;  // first step dead window vs median of the others
  int64_t cold_start_min_excess_ns = 20'000;
  double final_sync_ratio = 2.0;  // sync duration vs GPU work it covers
  int64_t final_sync_min_ns = 100'000;
};

std::vector<Diagnostic> findDiagnostics(const Trace& trace, const std::vector<StepStats>& steps,
                                        const DiagnosticThresholds& thresholds = {});

}  // namespace fuselab
