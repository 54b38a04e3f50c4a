// analyzeTrace: every analysis of Analysis.h over one trace.
#include "profiling/analysis/single/Analysis.h"

#include <algorithm>
#include <future>

namespace fuselab {

namespace {

// Options and scope: what the rest needs.
TraceAnalysis scoped(const Trace& trace, const AnalysisOptions& options) {
  TraceAnalysis a;
  a.options = options;
  a.options.gap_threshold_ns = std::clamp(options.gap_threshold_ns, AnalysisOptions::kMinGapThresholdNs,
                                          AnalysisOptions::kMaxGapThresholdNs);
  a.scope = findAnalysisScope(trace);
  return a;
}

void addGpuTime(const Trace& trace, TraceAnalysis& a) {
  for (EventRef r : a.scope.gpu_ops)
    if (trace.tracks[r.track].category[r.index] == Category::Kernel) ++a.kernel_count;
  a.gpu_op_count = a.scope.gpu_ops.size();
  a.gaps = findGpuGaps(trace, a.scope, a.options);
  a.idle = summarizeIdle(a.gaps);
  a.utilization = computeUtilization(trace, a.scope);
}

}  // namespace

TraceAnalysis analyzeGpuTime(const Trace& trace, const AnalysisOptions& options) {
  TraceAnalysis a = scoped(trace, options);
  addGpuTime(trace, a);
  return a;
}

TraceAnalysis analyzeTrace(const Trace& trace, const AnalysisOptions& options) {
  TraceAnalysis a = scoped(trace, options);
  // Attributing work to GPU ops takes about half the analysis and needs only
  // the scope: it runs on a second thread while the other figures are made.
  std::future<std::vector<GpuOpWork>> work =
      std::async(std::launch::async, [&] { return attributeWork(trace, a.scope.gpu_ops); });
  addGpuTime(trace, a);
  a.idle_per_stream = summarizeIdlePerStream(trace, a.gaps);
  a.launch_delays = computeLaunchDelays(trace);
  a.launch_delay_summary = summarizeLaunchDelays(a.launch_delays);
  a.steps = computeSteps(trace);
  a.kernels = kernelTable(trace, a.scope);
  {
    const MemoryEvents memory = readMemoryEvents(trace);
    const OpMemory op_memory = opMemory(trace, memory);
    a.cpu_ops = cpuOpTable(trace, op_memory);
    if (!memory.empty()) a.memory = summarizeMemory(trace, memory, op_memory);
  }
  a.verdict = decideVerdict(a.utilization, a.idle, a.gpu_op_count);
  a.diagnostics = findDiagnostics(trace, a.steps);
  addMeasuredFigures(trace, a);  // needs only the kernel rows: done while the work is attributed
  addRoofline(trace, a, work.get());
  return a;
}

}  // namespace fuselab
