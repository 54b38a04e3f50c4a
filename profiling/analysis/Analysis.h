// Trace analysis: pure functions of a finalized `Trace` that turn events into
// the figures fuselab shows (idle gaps and their causes, launch delays,
// utilization, per-step figures, kernel and CPU op tables, the verdict and the
// tutorial's diagnostics). Definitions follow ../shared/DESIGN.md
// ("Definitions") and Holistic Trace Analysis (HTA) where it has one.
//
// One concern per file: AnalysisScope.cpp (which GPU ops and which time span
// count), AnalysisGaps.cpp, AnalysisLaunch.cpp, AnalysisSteps.cpp,
// AnalysisTables.cpp, AnalysisVerdict.cpp, AnalysisDiagnostics.cpp, and
// Analysis.cpp (analyzeTrace, which runs them all).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiling/analysis/Roofline.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

struct AnalysisOptions {
  // Idle gaps shorter than this (and not host wait) are "kernel wait": the
  // normal delay between back-to-back GPU ops. HTA's consecutive_kernel_delay.
  int64_t gap_threshold_ns = 30'000;

  // Range accepted for gap_threshold_ns (the CLI and UI check it; analyzeTrace
  // clamps into it).
  static constexpr int64_t kMinGapThresholdNs = 0;
  static constexpr int64_t kMaxGapThresholdNs = 1'000'000'000;  // 1 s

  // Ceilings measured on GPUs (by GPU name); a trace whose GPU has none here
  // uses the published peaks of its GPU name (Roofline.h).
  std::vector<Ceilings> measured_ceilings;
  RooflineRules roofline_rules;
};

// ---------------------------------------------------------------------------
// Scope: which GPU ops the analysis looks at, and over which span.

struct AnalysisScope {
  bool from_steps = false;  // true: ProfilerStep#k annotations were found
  int64_t start_ns = 0;     // first step start (or trace begin)
  // Last step end, extended to the end of the last in-scope GPU op when the
  // GPU finishes after the CPU left the last step (else trace end).
  int64_t end_ns = 0;
  // GPU ops (kernel / memcpy / memset) in scope, sorted by (track, start).
  // With steps: ops whose launch call (or, with none captured, whose GPU
  // start) falls inside a step. Without steps: every GPU op.
  std::vector<EventRef> gpu_ops;

  int64_t spanNs() const { return end_ns - start_ns; }
};

AnalysisScope findAnalysisScope(const Trace& trace);

// The time a GPU op is attributed by: its launch call's start if captured,
// else its own GPU start.
int64_t attributionTimeNs(const Trace& trace, EventRef gpu_op);

// ---------------------------------------------------------------------------
// GPU idle gaps (HTA idle_time_breakdown).

enum class GapCause : uint8_t {
  HostWait,    // the next op's launch call started after the previous op ended
  KernelWait,  // not host wait, and shorter than the threshold
  Other,
};
std::string_view gapCauseName(GapCause c);  // "host_wait", "kernel_wait", "other"

struct GpuGap {
  int device = -1;
  int64_t stream = -1;
  uint32_t track = 0;
  int64_t start_ns = 0;  // end of prev_op
  int64_t end_ns = 0;    // start of next_op
  GapCause cause = GapCause::Other;
  // A CPU synchronize call (isSynchronizeCall) overlaps the gap: the host was
  // blocked waiting for the GPU while the GPU went idle.
  bool covered_by_sync = false;
  int64_t sync_overlap_ns = 0;        // how much of the gap synchronize calls overlap
  std::optional<EventRef> sync_call;  // the (first) overlapping call
  EventRef prev_op;
  EventRef next_op;

  int64_t durationNs() const { return end_ns - start_ns; }
};

// Gaps between consecutive in-scope GPU ops on each stream, in (track, time)
// order. Ops that overlap on one stream leave no gap.
std::vector<GpuGap> findGpuGaps(const Trace& trace, const AnalysisScope& scope, const AnalysisOptions& options);

// CPU calls that block the host until the GPU catches up.
bool isSynchronizeCall(std::string_view name);  // cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize

struct IdleBreakdown {
  int64_t host_wait_ns = 0;
  int64_t kernel_wait_ns = 0;
  int64_t other_ns = 0;
  int64_t sync_covered_ns = 0;  // part of the above overlapped by synchronize calls
  uint64_t gap_count = 0;

  int64_t totalNs() const { return host_wait_ns + kernel_wait_ns + other_ns; }
  double hostWaitShare() const;  // host_wait / total, 0 when no idle time
};

struct StreamIdle {
  int device = -1;
  int64_t stream = -1;
  uint32_t track = 0;
  IdleBreakdown idle;
};

// Totals are summed over streams (they can exceed the span with several streams).
IdleBreakdown summarizeIdle(const std::vector<GpuGap>& gaps);
// Sorted by (device, stream).
std::vector<StreamIdle> summarizeIdlePerStream(const Trace& trace, const std::vector<GpuGap>& gaps);

// ---------------------------------------------------------------------------
// Launch delay: max(0, gpu_start - (launch_start + launch_dur)).

struct LaunchDelay {
  EventRef gpu_op;
  EventRef launch;
  int64_t delay_ns = 0;
};

// One entry per GPU op (whole trace) whose launch call was captured, in
// (track, start) order of the GPU ops.
std::vector<LaunchDelay> computeLaunchDelays(const Trace& trace);

struct LaunchDelaySummary {
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t max_ns = 0;
  double mean_ns = 0;
};
LaunchDelaySummary summarizeLaunchDelays(const std::vector<LaunchDelay>& delays);

// ---------------------------------------------------------------------------
// Utilization: union of in-scope GPU op intervals / scope span.

struct Utilization {
  int64_t busy_ns = 0;  // union over all devices and streams, clipped to the scope
  int64_t span_ns = 0;
  double fraction = 0;  // busy / span, 0 when span is 0
};
Utilization computeUtilization(const Trace& trace, const AnalysisScope& scope);

// Length of the union of [start, end) intervals (any order, may overlap).
int64_t unionLengthNs(std::vector<std::pair<int64_t, int64_t>> intervals);

// ---------------------------------------------------------------------------
// Per-step figures from ProfilerStep#k annotations.

struct StepStats {
  int index = 0;       // k in ProfilerStep#k
  std::string name;    // "ProfilerStep#k"
  EventRef annotation;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint64_t kernels = 0;   // kernels attributed to the step (by launch call time)
  uint64_t gpu_ops = 0;   // kernels + memcpy + memset
  uint64_t launches = 0;  // launch calls in the step that enqueued GPU work
  int64_t gpu_busy_ns = 0;      // union of the step's GPU op intervals
  int64_t cpu_dispatch_ns = 0;  // union of cpu_op intervals inside the step
  int64_t wall_ns = 0;          // end - start
  // Step start -> first GPU op start of the step (-1 when it has none): the
  // "dead window" of a cold first step.
  int64_t first_gpu_op_offset_ns = -1;
  // Work of the step's GPU ops (host copies left out), filled by analyzeTrace.
  RooflineFigures roofline;
};

// Sorted by start time. Empty when the trace has no ProfilerStep#k.
std::vector<StepStats> computeSteps(const Trace& trace);

// k of "ProfilerStep#k", or nullopt for any other name.
std::optional<int> profilerStepIndex(std::string_view name);

// The ProfilerStep#k annotations on CPU tracks, sorted by start time.
std::vector<EventRef> findProfilerSteps(const Trace& trace);

// ---------------------------------------------------------------------------
// Tables.

// Hardware counters a capture measured (capture --counters) on some calls of
// one kernel name: the calls of its counter pass, one forward's worth.
struct MeasuredKernelFigures {
  uint64_t calls = 0;                        // calls that carry counters
  std::optional<double> bytes_per_call;      // mean DRAM bytes read + written
  std::optional<double> tensor_active_pct;   // mean tensor pipe activity, % of peak
};

struct KernelRow {
  std::string name;
  Category category = Category::Kernel;  // Kernel, Memcpy or Memset
  uint64_t count = 0;
  int64_t total_ns = 0;
  double mean_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  RooflineFigures roofline;  // filled by analyzeTrace (AnalysisRoofline.cpp)
  MeasuredKernelFigures measured;  // filled by addMeasuredFigures (AnalysisMeasured.cpp)
  // The model's bytes per call (roofline.bytes / roofline.known), when known.
  std::optional<double> modelBytesPerCall() const;
};

// The in-scope GPU ops grouped by (name, category), by total time descending.
std::vector<KernelRow> kernelTable(const Trace& trace, const AnalysisScope& scope);

struct CpuOpRow {
  std::string name;
  Category category = Category::CpuOp;  // CpuOp, CudaRuntime or CudaDriver
  uint64_t calls = 0;
  int64_t self_ns = 0;   // duration minus the time of events nested directly in it
  int64_t total_ns = 0;  // duration (a recursive call counts once per call)
  int64_t gpu_ns = 0;    // GPU time of the ops launched from inside it (0 for aten::t)
  uint64_t gpu_ops = 0;  // how many GPU ops it launched
};

// cpu_op, cuda_runtime and cuda_driver events of the whole trace grouped by
// (name, category), by total time descending.
std::vector<CpuOpRow> cpuOpTable(const Trace& trace);

// ---------------------------------------------------------------------------
// Verdict.

enum class VerdictKind : uint8_t { OverheadBound, ComputeBound, Mixed, NoGpuWork };
std::string_view verdictName(VerdictKind k);  // "overhead_bound", "compute_bound", "mixed", "no_gpu_work"

struct Verdict {
  VerdictKind kind = VerdictKind::NoGpuWork;
  double utilization = 0;      // Utilization::fraction
  double host_wait_share = 0;  // IdleBreakdown::hostWaitShare()
  std::string explanation;     // one or two sentences with the numbers

  // Compute-bound at or above this utilization; overhead-bound below
  // kLowUtilization when host wait is at least kHostWaitDominates of idle time.
  static constexpr double kHighUtilization = 0.8;
  static constexpr double kLowUtilization = 0.5;
  static constexpr double kHostWaitDominates = 0.5;
};

Verdict decideVerdict(const Utilization& utilization, const IdleBreakdown& idle, uint64_t gpu_op_count);

// ---------------------------------------------------------------------------
// Diagnostics (the tutorial's "what to look for").

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

// ---------------------------------------------------------------------------
// Roofline (Roofline.h, KernelWork.h).

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

// ---------------------------------------------------------------------------
// Everything at once.

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
  uint64_t kernel_count = 0;  // kernels in scope
  uint64_t gpu_op_count = 0;  // kernels + memcpy + memset in scope
};

// `trace` must be finalized.
TraceAnalysis analyzeTrace(const Trace& trace, const AnalysisOptions& options = {});

}  // namespace fuselab
