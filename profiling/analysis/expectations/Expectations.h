// Machine-checkable expectations about a trace ("5 kernels per step", "no
// kernel under aten::t", "GPU utilization below 50%") and their evaluation
// against a Trace and its TraceAnalysis: met / not met / cannot check, the
// measured value, an explanation for people and the events that show it.
// Pure functions; the tutorial presets (assets/tutorial/*.json) are lists of
// these, parsed by profiling/ExpectationsJson.h.
//
// Names: `pattern` is a case-insensitive ECMAScript regex searched anywhere in
// a GPU op's name (kernel names are long and differ by GPU); every entry of
// `ops` and `apis` is a case-sensitive regex that must match a CPU event's
// whole name ("aten::t" matches aten::t only, not aten::transpose).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiling/analysis/common/KernelNames.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/critical_path/CriticalPath.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

enum class ExpectationKind : uint8_t {
  KernelsPerStep,           // min/max kernels in each selected step
  LaunchesPerStep,          // min/max launch calls with GPU work in each selected step
  KernelNameMatches,        // min/max kernels whose name matches `pattern`, per step or over the trace
  GpuOpMatches,             // the same over GPU ops of `category` (memcpy, memset, any)
  NoKernelMatching,         // no kernel in scope matches `pattern`
  NoKernelUnderOp,          // CPU ops matching `ops` launch no GPU work (at least one must exist)
  OpChain,                  // ops[0] containing ops[1..] in start order; min/max such chains per step
  OpAbsent,                 // no CPU event in the steps matches `ops`
  FirstStepLongerThanRest,  // first step >= factor x median of the others (wall or dead window)
  GpuUtilizationBelow,      // utilization < value
  GpuUtilizationAbove,      // utilization > value
  VerdictIs,                // the verdict is one of `verdicts`
  CpuTimeExceedsGpuTime,    // CPU dispatch >= factor x GPU busy, summed over the steps
  GpuTimeReachesCpuTime,    // GPU busy >= factor x CPU dispatch, summed over the steps
  DiagnosticPresent,        // analysis found `diagnostic`
  DiagnosticAbsent,         // analysis did not find `diagnostic`
  KernelLaunchedVia,        // kernels matching `pattern` were launched by a call matching one of `apis`
  KernelDurationSpread,     // (slowest - fastest) / fastest of kernels matching `pattern` within min/max
  KernelTimeShare,          // share of kernel time taken by kernels matching `pattern` within min/max
  FinalSyncGpuShare,        // share of the last synchronize call during which the GPU works, within min/max
  ObserverEffect,           // profiled / unprofiled time per step (the capture's own cost) within min/max
  CriticalPathShare,        // share of the steps' critical path in `path` kinds (on `rank`, given one) within min/max
  FlameShareUnder,          // share of the CPU time under frames matching `ops` spent in frames matching `pattern`, within min/max
  PeakMemoryPerForward,     // bytes a step adds at its peak on the GPU (the CPU without one), within min/max
  // Run kinds (ExpectationsRun.h): a run of several ranks; a single trace cannot check them.
  LateRankEveryStep,        // `rank` arrived last at every collective of the run
  CollectivesPerStep,       // min/max collectives per recorded step, on every rank
};

// "kernels_per_step", ... (the spelling used in the preset files).
std::string_view expectationKindName(ExpectationKind k);
std::optional<ExpectationKind> parseExpectationKind(std::string_view name);
const std::vector<ExpectationKind>& allExpectationKinds();

enum class StepSelection : uint8_t { All, AfterFirst };       // "all", "after_first"
enum class CountPer : uint8_t { Step, Trace };                 // "step", "trace"
enum class GpuOpFilter : uint8_t { Kernel, Memcpy, Memset, Any };  // "kernel", "memcpy", "memset", "any"
enum class StepMeasure : uint8_t { Wall, DeadWindow };         // "wall", "dead_window"

struct Expectation {
  ExpectationKind kind = ExpectationKind::KernelsPerStep;
  std::string text;  // the statement shown to people
  std::string hint;  // what a mismatch usually means (may be empty)

  // Bounds (inclusive) of a count, share or spread; a missing one is open.
  std::optional<double> min;
  std::optional<double> max;
  double factor = 1.0;  // ratio kinds
  double value = 0.0;   // utilization threshold (0..1)
  std::string pattern;
  std::vector<std::string> ops;   // CPU op names (regexes), or the chain
  std::vector<std::string> apis;  // launch call names (regexes)
  std::vector<VerdictKind> verdicts;
  DiagnosticKind diagnostic = DiagnosticKind::ColdStart;
  StepSelection steps = StepSelection::All;
  CountPer per = CountPer::Step;
  GpuOpFilter category = GpuOpFilter::Kernel;
  StepMeasure measure = StepMeasure::Wall;
  std::optional<int> rank;     // run kinds: the rank they are about (required by late_rank_every_step)
  std::vector<PathKind> path;  // critical_path_share: the kinds of time counted
};

enum class ExpectationStatus : uint8_t {
  Met,
  NotMet,
  Unavailable,  // the trace lacks what the check needs (no GPU activity, no ProfilerStep#k)
};
std::string_view expectationStatusName(ExpectationStatus s);  // "met", "not met", "cannot check"

struct ExpectationResult {
  ExpectationStatus status = ExpectationStatus::Unavailable;
  std::string measured;        // short: "5, 5, 5 kernels"
  std::optional<double> value; // the main number behind `measured`, where there is one
  std::string explanation;     // a sentence or two with the numbers
  std::vector<EventRef> evidence;  // events to select on the timeline (capped)

  bool met() const { return status == ExpectationStatus::Met; }
};

// Evidence lists are capped at this many events.
inline constexpr size_t kMaxExpectationEvidence = 64;

// `trace` must be finalized and `analysis` must be analyzeTrace(trace). An
// invalid regex gives Unavailable with the regex error (parseExpectation
// rejects those earlier).
ExpectationResult evaluateExpectation(const Trace& trace, const TraceAnalysis& analysis, const Expectation& e);
std::vector<ExpectationResult> evaluateExpectations(const Trace& trace, const TraceAnalysis& analysis,
                                                    const std::vector<Expectation>& expectations);

// One line naming an event for people: "aten::linear at +0.591 ms (CPU 644/644)".
std::string describeEvidence(const Trace& trace, EventRef ref);

}  // namespace fuselab
