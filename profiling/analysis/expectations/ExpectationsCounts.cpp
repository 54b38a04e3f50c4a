// Expectations that count GPU ops: kernels and launch calls per step, GPU ops
// whose name matches a pattern (per step or over the trace), none matching.
#include "profiling/analysis/expectations/ExpectationKinds.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace fuselab::expectation_kinds {

namespace {

bool categoryPasses(Category c, GpuOpFilter f) {
  switch (f) {
    case GpuOpFilter::Kernel: return c == Category::Kernel;
    case GpuOpFilter::Memcpy: return c == Category::Memcpy;
    case GpuOpFilter::Memset: return c == Category::Memset;
    case GpuOpFilter::Any: return isGpuWork(c);
  }
  return false;
}

std::string_view filterNoun(GpuOpFilter f) {
  switch (f) {
    case GpuOpFilter::Kernel: return "kernels";
    case GpuOpFilter::Memcpy: return "memcpys";
    case GpuOpFilter::Memset: return "memsets";
    case GpuOpFilter::Any: return "GPU ops";
  }
  return "GPU ops";
}

ExpectationResult checkPerStepCounts(const Context& c, const Expectation& e, std::string_view noun,
                                     const std::vector<uint64_t>& counts, const std::vector<size_t>& sel,
                                     const std::vector<std::vector<EventRef>>& items_per_step) {
  std::optional<size_t> bad;  // position in sel
  for (size_t i = 0; i < sel.size(); ++i)
    if (!inRange(double(counts[i]), e.min, e.max)) {
      bad = i;
      break;
    }
  ExpectationResult r = decided(!bad);
  r.measured = joinCounts(counts) + " " + std::string(noun) + " per step";
  std::vector<double> as_double(counts.begin(), counts.end());
  r.value = median(as_double);
  const size_t show = bad ? *bad : 0;
  const StepStats& st = c.a.steps[sel[show]];
  if (!bad) {
    r.explanation = "Each of the " + c.stepRangeText(sel) + " has " + rangeText(e.min, e.max) + " " +
                    std::string(noun) + ". " + st.name + ": " + c.opSummary(items_per_step[show]) + ".";
  } else {
    r.explanation = st.name + " has " + std::to_string(counts[show]) + " " + std::string(noun) + ", expected " +
                    rangeText(e.min, e.max) + ". In that step: " + c.opSummary(items_per_step[show]) + ".";
  }
  addEvidence(r.evidence, st.annotation);
  for (EventRef x : items_per_step[show]) addEvidence(r.evidence, x);
  return r;
}

}  // namespace

ExpectationResult kernelsPerStep(const Context& c, const Expectation& e) {
  if (!c.hasSteps()) return unavailable(kNoSteps);
  if (!c.hasGpu()) return unavailable(kNoGpu);
  const auto sel = c.selected(e.steps);
  if (sel.empty()) return unavailable("The trace has only one step, and the check skips the first.");
  std::vector<uint64_t> counts;
  std::vector<std::vector<EventRef>> items;
  for (size_t k : sel) {
    counts.push_back(c.a.steps[k].kernels);
    std::vector<EventRef> kernels;
    for (EventRef r : c.step_ops[k])
      if (c.trace.tracks[r.track].category[r.index] == Category::Kernel) kernels.push_back(r);
    items.push_back(std::move(kernels));
  }
  return checkPerStepCounts(c, e, "kernels", counts, sel, items);
}

ExpectationResult launchesPerStep(const Context& c, const Expectation& e) {
  if (!c.hasSteps()) return unavailable(kNoSteps);
  if (!c.hasGpu()) return unavailable(kNoGpu);
  const auto sel = c.selected(e.steps);
  if (sel.empty()) return unavailable("The trace has only one step, and the check skips the first.");
  std::vector<std::vector<EventRef>> per_step(c.a.steps.size());
  for (uint32_t ti = 0; ti < c.trace.tracks.size(); ++ti)
    for (uint32_t i : c.launchesByTrack()[ti])
      if (auto k = c.stepOf(c.trace.tracks[ti].start_ns[i])) per_step[*k].push_back({ti, i});
  std::vector<uint64_t> counts;
  std::vector<std::vector<EventRef>> items;
  for (size_t k : sel) {
    counts.push_back(c.a.steps[k].launches);
    items.push_back(per_step[k]);
  }
  return checkPerStepCounts(c, e, "launch calls", counts, sel, items);
}

ExpectationResult gpuOpMatches(const Context& c, const Expectation& e, GpuOpFilter filter) {
  if (!c.hasGpu()) return unavailable(kNoGpu);
  NameMatcher m(c.trace, {e.pattern}, true);
  const std::string noun = std::string(filterNoun(filter)) + " matching '" + e.pattern + "'";
  auto matching = [&](const std::vector<EventRef>& ops) {
    std::vector<EventRef> out;
    for (EventRef r : ops)
      if (categoryPasses(c.trace.tracks[r.track].category[r.index], filter) && m.matches(r)) out.push_back(r);
    return out;
  };
  if (e.per == CountPer::Step) {
    if (!c.hasSteps()) return unavailable(kNoSteps);
    const auto sel = c.selected(e.steps);
    if (sel.empty()) return unavailable("The trace has only one step, and the check skips the first.");
    std::vector<uint64_t> counts;
    std::vector<std::vector<EventRef>> items;
    std::optional<size_t> bad;
    for (size_t i = 0; i < sel.size(); ++i) {
      items.push_back(matching(c.step_ops[sel[i]]));
      counts.push_back(items.back().size());
      if (!bad && !inRange(double(counts.back()), e.min, e.max)) bad = i;
    }
    ExpectationResult r = decided(!bad);
    r.measured = joinCounts(counts) + " per step";
    r.value = median(std::vector<double>(counts.begin(), counts.end()));
    const size_t show = bad ? *bad : 0;
    const StepStats& st = c.a.steps[sel[show]];
    if (!bad) {
      r.explanation = "Each of the " + c.stepRangeText(sel) + " has " + rangeText(e.min, e.max) + " " + noun +
                      (items[0].empty() ? "." : ": " + c.opSummary(items[0]) + ".");
      for (EventRef x : items[0]) addEvidence(r.evidence, x);
    } else {
      std::vector<EventRef> all_of_kind;
      for (EventRef x : c.step_ops[sel[show]])
        if (categoryPasses(c.trace.tracks[x.track].category[x.index], filter)) all_of_kind.push_back(x);
      r.explanation = st.name + " has " + std::to_string(counts[show]) + " " + noun + ", expected " +
                      rangeText(e.min, e.max) + ". Its " + std::string(filterNoun(filter)) + ": " +
                      c.opSummary(all_of_kind) + ".";
      addEvidence(r.evidence, st.annotation);
      for (EventRef x : counts[show] ? items[show] : all_of_kind) addEvidence(r.evidence, x);
    }
    return r;
  }
  const std::vector<EventRef> found = matching(c.a.scope.gpu_ops);
  ExpectationResult r = decided(inRange(double(found.size()), e.min, e.max));
  r.measured = std::to_string(found.size()) + " in the trace";
  r.value = double(found.size());
  r.explanation = "The trace has " + std::to_string(found.size()) + " " + noun + " (expected " +
                  rangeText(e.min, e.max) + ")" + (found.empty() ? "." : ": " + c.opSummary(found) + ".");
  for (EventRef x : found) addEvidence(r.evidence, x);
  return r;
}

ExpectationResult noKernelMatching(const Context& c, const Expectation& e) {
  if (!c.hasGpu()) return unavailable(kNoGpu);
  NameMatcher m(c.trace, {e.pattern}, true);
  std::vector<EventRef> found;
  for (EventRef r : c.a.scope.gpu_ops)
    if (c.trace.tracks[r.track].category[r.index] == Category::Kernel && m.matches(r)) found.push_back(r);
  ExpectationResult r = decided(found.empty());
  r.measured = std::to_string(found.size()) + " matching";
  r.value = double(found.size());
  if (found.empty())
    r.explanation = "None of the " + std::to_string(c.a.kernel_count) + " kernels in scope matches '" + e.pattern +
                    "'.";
  else
    r.explanation = std::to_string(found.size()) + " kernel(s) match '" + e.pattern + "': " + c.opSummary(found) + ".";
  for (EventRef x : found) addEvidence(r.evidence, x);
  return r;
}

}  // namespace fuselab::expectation_kinds
