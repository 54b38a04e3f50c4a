// Expectations about CPU-side structure: ops that launch no GPU work, chains of
// nested ops, ops that must be absent.
#include "profiling/analysis/expectations/ExpectationKinds.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fuselab::expectation_kinds {

ExpectationResult noKernelUnderOp(const Context& c, const Expectation& e) {
  if (!c.hasGpu()) return unavailable(kNoGpu);
  NameMatcher m(c.trace, e.ops, false);
  const std::vector<EventRef> ops = c.cpuEvents(m);
  if (ops.empty())
    return unavailable("No CPU op named " + joinNames(e.ops, ", ") + " in the trace's steps, so there is nothing to check.");
  std::vector<EventRef> offenders;  // op, launch, GPU ops
  size_t bad_ops = 0, gpu_ops = 0;
  for (EventRef op : ops) {
    const auto launches = c.launchesInside(op);
    if (launches.empty()) continue;
    ++bad_ops;
    addEvidence(offenders, op);
    for (EventRef l : launches) {
      addEvidence(offenders, l);
      if (const LaunchLink* link = c.trace.launchFor(c.trace.tracks[l.track].correlation[l.index]))
        for (EventRef g : link->gpu_ops) {
          ++gpu_ops;
          addEvidence(offenders, g);
        }
    }
  }
  ExpectationResult r = decided(bad_ops == 0);
  r.value = double(gpu_ops);
  r.measured = std::to_string(ops.size()) + " op calls, " + std::to_string(gpu_ops) + " GPU ops launched from them";
  if (bad_ops == 0) {
    r.explanation = "None of the " + std::to_string(ops.size()) + " calls of " + joinNames(e.ops, ", ") +
                    " contains a launch call: they only change tensor metadata.";
    for (EventRef op : ops) addEvidence(r.evidence, op);
  } else {
    r.explanation = std::to_string(bad_ops) + " of the " + std::to_string(ops.size()) + " calls launch GPU work (" +
                    std::to_string(gpu_ops) + " GPU ops), e.g. " + describeEvidence(c.trace, offenders.front()) +
                    " launches " + (offenders.size() > 1 ? describeEvidence(c.trace, offenders[1]) : "") + ".";
    r.evidence = std::move(offenders);
  }
  return r;
}

ExpectationResult opChain(const Context& c, const Expectation& e) {
  if (!c.hasSteps()) return unavailable(kNoSteps);
  if (e.ops.empty()) return unavailable("The chain is empty.");
  std::vector<NameMatcher> links;
  for (const auto& op : e.ops) links.emplace_back(c.trace, std::vector<std::string>{op}, false);
  const std::vector<EventRef> roots = c.cpuEvents(links[0]);

  std::vector<uint64_t> per_step(c.a.steps.size(), 0);
  std::vector<EventRef> first_chain;
  std::vector<EventRef> best_partial;  // the longest incomplete prefix seen
  for (EventRef root : roots) {
    const Track& t = c.trace.tracks[root.track];
    const int64_t end = t.end_ns(root.index);
    std::vector<EventRef> chain{root};
    for (uint32_t j = root.index + 1; j < t.size() && t.start_ns[j] <= end && chain.size() < links.size(); ++j)
      if (t.end_ns(j) <= end && links[chain.size()].matches(t.name_id[j])) chain.push_back({root.track, j});
    if (chain.size() == links.size()) {
      if (auto k = c.stepOf(t.start_ns[root.index])) ++per_step[*k];
      if (first_chain.empty()) first_chain = chain;
    } else if (chain.size() > best_partial.size()) {
      best_partial = chain;
    }
  }
  const auto sel = c.selected(StepSelection::All);
  std::vector<uint64_t> counts;
  std::optional<size_t> bad;
  const std::optional<double> min = e.min ? e.min : std::optional<double>(1.0);
  for (size_t i = 0; i < sel.size(); ++i) {
    counts.push_back(per_step[sel[i]]);
    if (!bad && !inRange(double(counts.back()), min, e.max)) bad = i;
  }
  const std::string chain_text = joinNames(e.ops, " -> ");
  ExpectationResult r = decided(!bad);
  r.measured = joinCounts(counts) + " per step";
  r.value = median(std::vector<double>(counts.begin(), counts.end()));
  if (!bad) {
    r.explanation = "Each of the " + c.stepRangeText(sel) + " has " + rangeText(min, e.max) + " " + chain_text +
                    " chain(s).";
  } else {
    r.explanation = c.a.steps[sel[*bad]].name + " has " + std::to_string(counts[*bad]) + " " + chain_text +
                    " chain(s), expected " + rangeText(min, e.max) + ".";
    if (roots.empty()) {
      r.explanation += " There is no " + e.ops[0] + " in the trace's steps.";
    } else if (first_chain.empty()) {
      r.explanation += " The longest partial chain found is " + [&] {
        std::vector<std::string> names;
        for (EventRef x : best_partial) names.emplace_back(c.trace.name(x));
        return joinNames(names, " -> ");
      }() + "; nothing matching '" + e.ops[best_partial.size()] + "' follows inside it.";
      if (!c.hasGpu()) r.explanation += " (The trace has no GPU activity, so no launch calls were recorded.)";
    }
  }
  for (EventRef x : first_chain.empty() ? best_partial : first_chain) addEvidence(r.evidence, x);
  return r;
}

ExpectationResult opAbsent(const Context& c, const Expectation& e) {
  NameMatcher m(c.trace, e.ops, false);
  const std::vector<EventRef> found = c.cpuEvents(m);
  ExpectationResult r = decided(found.empty());
  r.value = double(found.size());
  r.measured = std::to_string(found.size()) + " found";
  if (found.empty()) {
    r.explanation = "No " + joinNames(e.ops, " or ") + " in the trace" + (c.hasSteps() ? "'s steps." : ".");
  } else {
    std::map<std::string, size_t> names;
    for (EventRef x : found) ++names[std::string(c.trace.name(x))];
    std::string list;
    for (const auto& [n, k] : names) list += (list.empty() ? "" : ", ") + n + " x" + std::to_string(k);
    r.explanation = "Found " + list + ", e.g. " + describeEvidence(c.trace, found.front()) + ".";
  }
  for (EventRef x : found) addEvidence(r.evidence, x);
  return r;
}

}  // namespace fuselab::expectation_kinds
