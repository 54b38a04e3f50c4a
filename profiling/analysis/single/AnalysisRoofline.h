// The roofline of a trace's GPU ops and the kernels' measured counters
// (AnalysisRoofline.cpp, AnalysisMeasured.cpp; Roofline.h, KernelWork.h).
#pragma once

#include <optional>
#include <vector>

#include "profiling/analysis/single/AnalysisTables.h"
#include "profiling/analysis/work/KernelWork.h"
#include "profiling/analysis/work/Roofline.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct RooflineAnalysis {
  std::optional<Ceilings> ceilings;  // nullopt: none measured or published for this GPU
  std::vector<GpuOpWork> work;       // parallel to AnalysisScope::gpu_ops
  std::vector<RooflineFigures> ops;  // parallel to AnalysisScope::gpu_ops
  RooflineFigures total;             // all in-scope GPU ops but host copies
};

// Fills `roofline`, and the roofline figures of the kernel rows and steps;
// `work` is attributeWork (KernelWork.h) of the scope's GPU ops.
struct TraceAnalysis;
void addRoofline(const Trace& trace, TraceAnalysis& analysis, std::vector<GpuOpWork> work);

// Fills the kernel rows' measured figures from the counters in the kernel
// events' args (trace/MeasuredCounters.h).
void addMeasuredFigures(const Trace& trace, TraceAnalysis& analysis);
// Whether any row carries measured counters (the UI shows their columns then).
bool anyMeasuredFigures(const std::vector<KernelRow>& rows);

}  // namespace fuselab
