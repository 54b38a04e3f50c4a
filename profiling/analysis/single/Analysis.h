// Trace analysis: pure functions of a finalized `Trace` that turn events into
// the figures fuselab shows (idle gaps and their causes, launch delays,
// utilization, per-step figures, kernel and CPU op tables, the verdict and the
// tutorial's diagnostics). Definitions follow ../shared/DESIGN.md
// ("Definitions") and Holistic Trace Analysis (HTA) where it has one.
//
// One concern per header (and its .cpp): AnalysisOptions.h, AnalysisScope.h
// (which GPU ops and which time span count), AnalysisGaps.h, AnalysisLaunch.h,
// AnalysisUtilization.h, AnalysisSteps.h, AnalysisTables.h,
// AnalysisVerdict.h, AnalysisDiagnostics.h, AnalysisRoofline.h (with
// AnalysisMeasured.cpp); small interval and statistics helpers in
// Intervals.h. This header holds what analyzeTrace (Analysis.cpp) returns;
// include a concern's header where that is all a file needs.
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/analysis/memory/MemorySummary.h"
#include "profiling/analysis/single/AnalysisDiagnostics.h"
#include "profiling/analysis/single/AnalysisGaps.h"
#include "profiling/analysis/single/AnalysisLaunch.h"
#include "profiling/analysis/single/AnalysisOptions.h"
#include "profiling/analysis/single/AnalysisRoofline.h"
#include "profiling/analysis/single/AnalysisScope.h"
#include "profiling/analysis/single/AnalysisSteps.h"
#include "profiling/analysis/single/AnalysisTables.h"
#include "profiling/analysis/single/AnalysisUtilization.h"
#include "profiling/analysis/single/AnalysisVerdict.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct TraceAnalysis {
  AnalysisOptions options;
  AnalysisScope scope;
  std::vector<GpuGap> gaps;
  IdleBreakdown idle;
  std::vector<StreamIdle> idle_per_stream;
  std::vector<LaunchDelay> launch_delays;
  LaunchDelaySummary launch_delay_summary;
  Utilization utilization;
  std::vector<StepStats> steps;
  std::vector<KernelRow> kernels;
  std::vector<CpuOpRow> cpu_ops;
  Verdict verdict;
  std::vector<Diagnostic> diagnostics;
  RooflineAnalysis roofline;
  MemorySummary memory;  // empty when the trace recorded no memory events
  uint64_t kernel_count = 0;  // kernels in scope
  uint64_t gpu_op_count = 0;  // kernels + memcpy + memset in scope
};

// `trace` must be finalized.
TraceAnalysis analyzeTrace(const Trace& trace, const AnalysisOptions& options = {});

// The GPU-time figures alone: options, scope, kernel and GPU op counts, gaps,
// idle and utilization, the rest left empty. What a run keeps of each rank
// (RankSummary.h), at a fraction of analyzeTrace's cost.
TraceAnalysis analyzeGpuTime(const Trace& trace, const AnalysisOptions& options = {});

}  // namespace fuselab
