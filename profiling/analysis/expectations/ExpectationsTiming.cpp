// Expectations about time figures (first step vs the rest, GPU utilization, CPU
// vs GPU time) and about the analysis's verdict and diagnostics.
#include "profiling/analysis/expectations/ExpectationKinds.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "profiling/trace/DurationText.h"
#include "profiling/trace/ObserverEffect.h"

namespace fuselab::expectation_kinds {

namespace {

std::string ratioText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", v);
  return buf;
}

// The longest idle gap's neighbours: where the GPU waited most.
void addLongestGap(const Context& c, ExpectationResult& r) {
  const GpuGap* longest = nullptr;
  for (const GpuGap& g : c.a.gaps)
    if (!longest || g.durationNs() > longest->durationNs()) longest = &g;
  if (!longest) return;
  addEvidence(r.evidence, longest->prev_op);
  addEvidence(r.evidence, longest->next_op);
  const Track& t = c.trace.tracks[longest->next_op.track];
  if (const LaunchLink* l = c.trace.launchFor(t.correlation[longest->next_op.index]); l && l->launch)
    addEvidence(r.evidence, *l->launch);
}

bool diagnosticNeedsGpu(DiagnosticKind k) { return k != DiagnosticKind::ColdStart; }

}  // namespace

ExpectationResult firstStepLonger(const Context& c, const Expectation& e) {
  if (!c.hasSteps()) return unavailable(kNoSteps);
  if (c.a.steps.size() < 2) return unavailable("The trace has one step; this needs at least two to compare.");
  const bool window = e.measure == StepMeasure::DeadWindow;
  if (window && !c.hasGpu()) return unavailable(kNoGpu);
  auto measure = [&](const StepStats& s) { return double(window ? s.first_gpu_op_offset_ns : s.wall_ns); };
  const StepStats& first = c.a.steps.front();
  if (window && first.first_gpu_op_offset_ns < 0)
    return unavailable(first.name + " has no GPU op, so it has no dead window to measure.");
  std::vector<double> rest;
  for (size_t k = 1; k < c.a.steps.size(); ++k)
    if (!window || c.a.steps[k].first_gpu_op_offset_ns >= 0) rest.push_back(measure(c.a.steps[k]));
  if (rest.empty()) return unavailable("The later steps have no GPU op to compare the dead window with.");
  const double med = median(rest), f = measure(first);
  const double ratio = med > 0 ? f / med : std::numeric_limits<double>::infinity();
  ExpectationResult r = decided(f >= e.factor * med);
  r.value = ratio;
  const std::string what = window ? "time to its first GPU op" : "wall time";
  r.measured = formatDuration(int64_t(f)) + " vs " + formatDuration(int64_t(med)) + " (" + ratioText(ratio) + ")";
  r.explanation = "The first step (" + first.name + ") " + what + " is " + formatDuration(int64_t(f)) +
                  "; the median of the other " + std::to_string(rest.size()) + " step(s) is " +
                  formatDuration(int64_t(med)) + ", a ratio of " + ratioText(ratio) + " (expected at least " +
                  ratioText(e.factor) + ").";
  addEvidence(r.evidence, first.annotation);
  if (c.a.steps.size() > 1) addEvidence(r.evidence, c.a.steps[1].annotation);
  return r;
}

ExpectationResult utilization(const Context& c, const Expectation& e, bool below) {
  if (!c.hasGpu()) return unavailable(kNoGpu);
  const Utilization& u = c.a.utilization;
  ExpectationResult r = decided(below ? u.fraction < e.value : u.fraction > e.value);
  r.value = u.fraction;
  r.measured = formatPercent(u.fraction);
  r.explanation = "The GPU is busy " + formatDuration(u.busy_ns) + " of the " + formatDuration(u.span_ns) +
                  " span (" + formatPercent(u.fraction) + "; expected " + (below ? "below " : "above ") +
                  formatPercent(e.value) + "). Idle time: " + formatDuration(c.a.idle.host_wait_ns) +
                  " host wait, " + formatDuration(c.a.idle.kernel_wait_ns) + " kernel wait, " +
                  formatDuration(c.a.idle.other_ns) + " other.";
  addLongestGap(c, r);
  return r;
}

ExpectationResult verdictIs(const Context& c, const Expectation& e) {
  const Verdict& v = c.a.verdict;
  const bool wants_no_gpu = std::find(e.verdicts.begin(), e.verdicts.end(), VerdictKind::NoGpuWork) != e.verdicts.end();
  if (v.kind == VerdictKind::NoGpuWork && !wants_no_gpu) return unavailable(kNoGpu);
  const bool met = std::find(e.verdicts.begin(), e.verdicts.end(), v.kind) != e.verdicts.end();
  ExpectationResult r = decided(met);
  r.measured = std::string(verdictName(v.kind));
  r.value = v.utilization;
  std::vector<std::string> wanted;
  for (VerdictKind k : e.verdicts) wanted.emplace_back(verdictName(k));
  r.explanation = "Verdict: " + std::string(verdictName(v.kind)) + " (expected " + joinNames(wanted, " or ") +
                  "). " + v.explanation;
  addLongestGap(c, r);
  return r;
}

ExpectationResult cpuGpuTime(const Context& c, const Expectation& e, bool cpu_exceeds) {
  if (!c.hasSteps()) return unavailable(kNoSteps);
  if (!c.hasGpu()) return unavailable(kNoGpu);
  int64_t cpu = 0, gpu = 0;
  for (const StepStats& s : c.a.steps) {
    cpu += s.cpu_dispatch_ns;
    gpu += s.gpu_busy_ns;
  }
  const double num = double(cpu_exceeds ? cpu : gpu), den = double(cpu_exceeds ? gpu : cpu);
  const double ratio = den > 0 ? num / den : std::numeric_limits<double>::infinity();
  ExpectationResult r = decided(num >= e.factor * den);
  r.value = ratio;
  r.measured = "CPU " + formatDuration(cpu) + ", GPU " + formatDuration(gpu);
  const std::string n = c.a.steps.size() == 1 ? "the step" : "the " + std::to_string(c.a.steps.size()) + " steps";
  r.explanation = "Over " + n + " the CPU dispatches ops for " + formatDuration(cpu) +
                  " (union of cpu_op time) and the GPU is busy " + formatDuration(gpu) + ": " +
                  (cpu_exceeds ? "CPU/GPU = " : "GPU/CPU = ") + ratioText(ratio) + ", expected at least " +
                  ratioText(e.factor) + ".";
  for (const StepStats& s : c.a.steps) addEvidence(r.evidence, s.annotation);
  return r;
}

ExpectationResult diagnostic(const Context& c, const Expectation& e, bool present) {
  const std::string name(diagnosticName(e.diagnostic));
  if (diagnosticNeedsGpu(e.diagnostic) && !c.hasGpu()) return unavailable(kNoGpu);
  if (e.diagnostic == DiagnosticKind::ColdStart && c.a.steps.size() < 2)
    return unavailable("The cold-start diagnostic compares the first step with the others; the trace has " +
                       std::to_string(c.a.steps.size()) + " step(s).");
  const Diagnostic* found = nullptr;
  std::vector<std::string> others;
  for (const Diagnostic& d : c.a.diagnostics) {
    if (d.kind == e.diagnostic) found = &d;
    else others.emplace_back(diagnosticName(d.kind));
  }
  ExpectationResult r = decided(present == (found != nullptr));
  r.measured = found ? "found" : "not found";
  r.value = found ? 1.0 : 0.0;
  if (found) {
    r.explanation = found->message;
    for (EventRef x : found->evidence) addEvidence(r.evidence, x);
  } else {
    r.explanation = "fuselab's analysis found no " + name + " diagnostic" +
                    (others.empty() ? " (and no other diagnostic)." : " (it found: " + joinNames(others, ", ") + ").");
  }
  return r;
}

ExpectationResult observerEffect(const Context& c, const Expectation& e) {
  const std::optional<ObserverEffect> effect = observerEffectOf(c.trace);
  if (!effect || effect->ratio() <= 0) {
    return unavailable(
        "The trace has no observer-effect figure: a fuselab capture times the same forwards without the "
        "profiler and stores the result; traces recorded elsewhere do not have it.");
  }
  const double ratio = effect->ratio();
  if (effect->withinNoise()) {
    ExpectationResult r = unavailable("Timed again without the profiler, the same forwards say " +
                                      describeObserverEffect(*effect) +
                                      ": the ratio measures this machine's noise, not the profiler. Capture again "
                                      "with more steps, or on a quieter machine.");
    r.value = ratio;
    r.measured = ratioText(ratio);
    return r;
  }
  ExpectationResult r = decided(inRange(ratio, e.min, e.max));
  r.value = ratio;
  r.measured = ratioText(ratio);
  r.explanation = "Timed again without the profiler, the same forwards say " + describeObserverEffect(*effect) +
                  ". Expected " + rangeText(e.min, e.max, false) + "x.";
  if (c.hasSteps()) addEvidence(r.evidence, c.a.steps.front().annotation);
  return r;
}

}  // namespace fuselab::expectation_kinds
