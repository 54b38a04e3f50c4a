#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "profiling/analysis/expectations/ExpectationKinds.h"
#include "profiling/trace/DurationText.h"

namespace fuselab::expectation_kinds {

namespace {

std::string kindsText(const std::vector<PathKind>& kinds) {
  std::vector<std::string> names;
  for (PathKind k : kinds) names.emplace_back(pathKindName(k));
  return joinNames(names, " + ");
}

bool counted(const std::vector<PathKind>& kinds, PathKind k) {
  return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}

}  // namespace

ExpectationResult criticalPathShare(const Trace& trace, const CriticalPathAnalysis& path, const Expectation& e,
                                    bool evidence_from_trace) {
  std::vector<const StepPath*> steps;
  for (const StepPath& p : path.steps) steps.push_back(&p);
  if (e.steps == StepSelection::AfterFirst && !steps.empty()) steps.erase(steps.begin());
  if (steps.empty() || path.steps.front().name == "whole trace") return unavailable(kNoSteps);
  const bool any_rank = std::any_of(trace.tracks.begin(), trace.tracks.end(), [](const Track& t) { return t.rank >= 0; });
  if (e.rank && !any_rank)
    return unavailable("This expectation is about one rank of a run; this trace is a single process's.");

  int64_t total = 0, selected = 0;
  std::array<int64_t, kPathKinds> by_kind{};
  std::map<int, int64_t> by_rank;
  std::vector<const PathSegment*> chosen;
  for (const StepPath* p : steps)
    for (const PathSegment& s : p->segments) {
      total += s.dur_ns;
      by_kind[static_cast<size_t>(s.kind)] += s.dur_ns;
      by_rank[s.rank] += s.dur_ns;
      if (!counted(e.path, s.kind) || (e.rank && s.rank != *e.rank)) continue;
      selected += s.dur_ns;
      chosen.push_back(&s);
    }
  if (total <= 0) return unavailable("The steps' critical path has no time.");
  const double share = static_cast<double>(selected) / static_cast<double>(total);
  ExpectationResult r = decided(inRange(share, e.min, e.max));
  r.value = share;
  const std::string what = kindsText(e.path) + (e.rank ? " on rank " + std::to_string(*e.rank) : "");
  r.measured = what + ": " + formatPercent(share) + " of the path";

  std::string kinds;
  for (size_t k = 0; k < kPathKinds; ++k)
    if (by_kind[k] > 0)
      kinds += (kinds.empty() ? "" : ", ") + std::string(pathKindName(static_cast<PathKind>(k))) + " " +
               formatPercent(static_cast<double>(by_kind[k]) / static_cast<double>(total));
  std::string ranks;
  if (any_rank)
    for (const auto& [rank, ns] : by_rank)
      ranks += (ranks.empty() ? "; by rank: " : ", ") + ("rank " + std::to_string(rank)) + " " +
               formatPercent(static_cast<double>(ns) / static_cast<double>(total));
  r.explanation = "The critical path of " + std::to_string(steps.size()) + " step" + (steps.size() == 1 ? "" : "s") +
                  " (" + formatDuration(total) + ") by kind: " + kinds + ranks + ". Expected " + what + " at " +
                  rangeText(e.min, e.max, true) + " of it.";
  if (evidence_from_trace) {
    std::stable_sort(chosen.begin(), chosen.end(),
                     [](const PathSegment* a, const PathSegment* b) { return a->dur_ns > b->dur_ns; });
    for (const PathSegment* s : chosen)
      if (s->event) addEvidence(r.evidence, *s->event);
  }
  return r;
}

}  // namespace fuselab::expectation_kinds
