// The expectation kinds' names, the public entry points of Expectations.h, the
// helpers the kinds share and the dispatch to each kind's evaluation.
#include "profiling/analysis/expectations/Expectations.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <regex>

#include "profiling/analysis/expectations/ExpectationKinds.h"
#include "profiling/trace/DurationText.h"

namespace fuselab {

namespace {

struct KindName {
  ExpectationKind kind;
  std::string_view name;
};

constexpr KindName kKindNames[] = {
    {ExpectationKind::KernelsPerStep, "kernels_per_step"},
    {ExpectationKind::LaunchesPerStep, "launches_per_step"},
    {ExpectationKind::KernelNameMatches, "kernel_name_matches"},
    {ExpectationKind::GpuOpMatches, "gpu_op_matches"},
    {ExpectationKind::NoKernelMatching, "no_kernel_matching"},
    {ExpectationKind::NoKernelUnderOp, "no_kernel_under_op"},
    {ExpectationKind::OpChain, "op_chain"},
    {ExpectationKind::OpAbsent, "op_absent"},
    {ExpectationKind::FirstStepLongerThanRest, "first_step_longer_than_rest"},
    {ExpectationKind::GpuUtilizationBelow, "gpu_utilization_below"},
    {ExpectationKind::GpuUtilizationAbove, "gpu_utilization_above"},
    {ExpectationKind::VerdictIs, "verdict_is"},
    {ExpectationKind::CpuTimeExceedsGpuTime, "cpu_time_exceeds_gpu_time"},
    {ExpectationKind::GpuTimeReachesCpuTime, "gpu_time_reaches_cpu_time"},
    {ExpectationKind::DiagnosticPresent, "diagnostic_present"},
    {ExpectationKind::DiagnosticAbsent, "diagnostic_absent"},
    {ExpectationKind::KernelLaunchedVia, "kernel_launched_via"},
    {ExpectationKind::KernelDurationSpread, "kernel_duration_spread"},
    {ExpectationKind::KernelTimeShare, "kernel_time_share"},
    {ExpectationKind::FinalSyncGpuShare, "final_sync_gpu_share"},
    {ExpectationKind::ObserverEffect, "observer_effect"},
    {ExpectationKind::CriticalPathShare, "critical_path_share"},
    {ExpectationKind::FlameShareUnder, "flame_share_under"},
    {ExpectationKind::PeakMemoryPerForward, "peak_memory_per_forward"},
    {ExpectationKind::LateRankEveryStep, "late_rank_every_step"},
    {ExpectationKind::CollectivesPerStep, "collectives_per_step"},
};

}  // namespace

std::string_view expectationKindName(ExpectationKind k) {
  for (const auto& kn : kKindNames)
    if (kn.kind == k) return kn.name;
  return "unknown";
}

std::optional<ExpectationKind> parseExpectationKind(std::string_view name) {
  for (const auto& kn : kKindNames)
    if (kn.name == name) return kn.kind;
  return std::nullopt;
}

const std::vector<ExpectationKind>& allExpectationKinds() {
  static const std::vector<ExpectationKind> all = [] {
    std::vector<ExpectationKind> v;
    for (const auto& kn : kKindNames) v.push_back(kn.kind);
    return v;
  }();
  return all;
}

std::string_view expectationStatusName(ExpectationStatus s) {
  switch (s) {
    case ExpectationStatus::Met: return "met";
    case ExpectationStatus::NotMet: return "not met";
    case ExpectationStatus::Unavailable: return "cannot check";
  }
  return "?";
}

std::string describeEvidence(const Trace& trace, EventRef ref) {
  if (ref.track >= trace.tracks.size() || ref.index >= trace.tracks[ref.track].size()) return "(no such event)";
  const Track& t = trace.tracks[ref.track];
  std::string where;
  if (t.kind == TrackKind::Gpu)
    where = "GPU " + std::to_string(t.device) + " stream " + std::to_string(t.stream);
  else
    where = "CPU " + std::string(trace.strings.get(t.pid_id)) + "/" + std::string(trace.strings.get(t.tid_id));
  const std::string name = isGpuWork(t.category[ref.index]) ? shortKernelName(trace.name(ref), 90)
                                                             : std::string(trace.name(ref));
  return name + " at +" + formatDuration(t.start_ns[ref.index] - trace.beginNs()) + " (" + where + ", " +
         formatDuration(t.dur_ns[ref.index]) + ")";
}

namespace expectation_kinds {

// ---------------------------------------------------------------------------
// Small helpers shared by the kinds (declared in ExpectationKinds.h).

namespace {

std::string number(double v) {
  char buf[32];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

bool inRange(double v, const std::optional<double>& min, const std::optional<double>& max) {
  return (!min || v >= *min) && (!max || v <= *max);
}

std::string rangeText(const std::optional<double>& min, const std::optional<double>& max, bool percent) {
  auto f = [&](double v) { return percent ? formatPercent(v) : number(v); };
  if (min && max) return *min == *max ? "exactly " + f(*min) : f(*min) + " to " + f(*max);
  if (min) return "at least " + f(*min);
  if (max) return "at most " + f(*max);
  return "any value";
}

std::string joinCounts(const std::vector<uint64_t>& counts) {
  std::string s;
  for (size_t i = 0; i < counts.size(); ++i) s += (i ? ", " : "") + std::to_string(counts[i]);
  return s;
}

void addEvidence(std::vector<EventRef>& out, EventRef r) {
  if (out.size() < kMaxExpectationEvidence && std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
}

ExpectationResult unavailable(std::string why) {
  ExpectationResult r;
  r.status = ExpectationStatus::Unavailable;
  r.measured = "-";
  r.explanation = std::move(why);
  return r;
}

ExpectationResult decided(bool met) {
  ExpectationResult r;
  r.status = met ? ExpectationStatus::Met : ExpectationStatus::NotMet;
  return r;
}

const char* kNoGpu =
    "The trace has no GPU activity in its steps (a CPU-only capture, or a trace recorded without CUDA "
    "activity), so this cannot be checked.";
const char* kNoSteps =
    "The trace has no ProfilerStep#k annotations, so per-step figures cannot be computed. Record it with a "
    "profiler schedule (torch.profiler: schedule + prof.step()) or capture it with fuselab.";

std::string joinNames(const std::vector<std::string>& names, std::string_view sep) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? std::string(sep) : "") + names[i];
  return s;
}

// ---------------------------------------------------------------------------
// Dispatch.

namespace {

ExpectationResult evaluate(const Context& c, const Expectation& e) {
  switch (e.kind) {
    case ExpectationKind::KernelsPerStep: return kernelsPerStep(c, e);
    case ExpectationKind::LaunchesPerStep: return launchesPerStep(c, e);
    case ExpectationKind::KernelNameMatches: return gpuOpMatches(c, e, GpuOpFilter::Kernel);
    case ExpectationKind::GpuOpMatches: return gpuOpMatches(c, e, e.category);
    case ExpectationKind::NoKernelMatching: return noKernelMatching(c, e);
    case ExpectationKind::NoKernelUnderOp: return noKernelUnderOp(c, e);
    case ExpectationKind::OpChain: return opChain(c, e);
    case ExpectationKind::OpAbsent: return opAbsent(c, e);
    case ExpectationKind::FirstStepLongerThanRest: return firstStepLonger(c, e);
    case ExpectationKind::GpuUtilizationBelow: return utilization(c, e, true);
    case ExpectationKind::GpuUtilizationAbove: return utilization(c, e, false);
    case ExpectationKind::VerdictIs: return verdictIs(c, e);
    case ExpectationKind::CpuTimeExceedsGpuTime: return cpuGpuTime(c, e, true);
    case ExpectationKind::GpuTimeReachesCpuTime: return cpuGpuTime(c, e, false);
    case ExpectationKind::DiagnosticPresent: return diagnostic(c, e, true);
    case ExpectationKind::DiagnosticAbsent: return diagnostic(c, e, false);
    case ExpectationKind::KernelLaunchedVia: return kernelLaunchedVia(c, e);
    case ExpectationKind::KernelDurationSpread: return kernelDurationSpread(c, e);
    case ExpectationKind::KernelTimeShare: return kernelTimeShare(c, e);
    case ExpectationKind::FinalSyncGpuShare: return finalSyncGpuShare(c, e);
    case ExpectationKind::ObserverEffect: return observerEffect(c, e);
    case ExpectationKind::CriticalPathShare: return criticalPathShare(c.trace, c.criticalPath(), e);
    case ExpectationKind::FlameShareUnder: return flameShareUnder(c, e);
    case ExpectationKind::PeakMemoryPerForward: return peakMemoryPerForward(c, e);
    case ExpectationKind::LateRankEveryStep:
    case ExpectationKind::CollectivesPerStep:
      return unavailable("This expectation is about a run: the traces of every rank of a distributed job (a folder "
                         "of rank traces, or the step's live run), not one trace.");
  }
  return unavailable("unknown expectation kind");
}

ExpectationResult evaluateGuarded(const Context& c, const Expectation& e) {
  try {
    return evaluate(c, e);
  } catch (const std::regex_error& err) {
    return unavailable("A name pattern of this expectation is not a valid regular expression: " +
                       std::string(err.what()));
  }
}

}  // namespace

}  // namespace expectation_kinds

ExpectationResult evaluateExpectation(const Trace& trace, const TraceAnalysis& analysis, const Expectation& e) {
  const expectation_kinds::Context c(trace, analysis);
  return expectation_kinds::evaluateGuarded(c, e);
}

std::vector<ExpectationResult> evaluateExpectations(const Trace& trace, const TraceAnalysis& analysis,
                                                    const std::vector<Expectation>& expectations) {
  const expectation_kinds::Context c(trace, analysis);
  std::vector<ExpectationResult> out;
  out.reserve(expectations.size());
  for (const Expectation& e : expectations) out.push_back(expectation_kinds::evaluateGuarded(c, e));
  return out;
}

}  // namespace fuselab
