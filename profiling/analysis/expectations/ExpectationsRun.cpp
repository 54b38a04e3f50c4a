#include "profiling/analysis/expectations/ExpectationsRun.h"

#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "profiling/analysis/expectations/ExpectationKinds.h"
#include "profiling/analysis/run/RunCriticalPath.h"

namespace fuselab {
namespace {

using expectation_kinds::decided;
using expectation_kinds::inRange;
using expectation_kinds::rangeText;
using expectation_kinds::unavailable;

// Recorded steps of a rank: its distinct ProfilerStep#k annotations.
size_t stepCount(const Trace& trace) {
  std::set<uint32_t> names;
  for (const Track& t : trace.tracks) {
    if (t.kind != TrackKind::Cpu) continue;
    for (uint32_t i = 0; i < t.size(); ++i)
      if (trace.strings.get(t.name_id[i]).starts_with("ProfilerStep#")) names.insert(t.name_id[i]);
  }
  return names.size();
}

ExpectationResult lateRankEveryStep(const Run& run, const RunAnalysis& a, const Expectation& e) {
  if (run.ranks.size() < 2) return unavailable("The run has fewer than two ranks: nobody can be late.");
  if (a.collectives.empty()) return unavailable("No collective was matched across the ranks.");
  size_t late = 0;
  std::map<int, size_t> by_rank;
  int64_t wait_ns = 0;
  for (const CollectiveStats& c : a.collectives) {
    ++by_rank[c.late_rank];
    if (c.late_rank == *e.rank && c.wait_ns > 0) ++late, wait_ns += c.wait_ns;
  }
  ExpectationResult r = decided(late == a.collectives.size());
  r.value = double(late);
  r.measured = "rank " + std::to_string(*e.rank) + " late at " + std::to_string(late) + " of " +
               std::to_string(a.collectives.size()) + " collectives";
  std::string others;
  for (const auto& [rank, n] : by_rank)
    others += (others.empty() ? "" : ", ") + ("rank " + std::to_string(rank) + ": " + std::to_string(n));
  r.explanation = "The last rank to arrive at each collective (" + others + "). Rank " + std::to_string(*e.rank) +
                  "'s late arrivals made the others wait " + std::to_string(wait_ns / 1000) + " us in all.";
  return r;
}

ExpectationResult collectivesPerStep(const Run& run, const RunAnalysis& a, const Expectation& e) {
  std::string measured;
  bool met = true;
  double first = 0;
  for (size_t k = 0; k < run.ranks.size(); ++k) {
    const size_t steps = stepCount(run.ranks[k].trace);
    if (steps == 0) return unavailable(expectation_kinds::kNoSteps);
    const double per_step = double(a.collectives_per_rank[k].size()) / double(steps);
    if (k == 0) first = per_step;
    met = met && inRange(per_step, e.min, e.max);
    char buf[64];
    std::snprintf(buf, sizeof buf, "rank %d: %.3g", run.ranks[k].rank, per_step);
    measured += (measured.empty() ? "" : ", ") + std::string(buf);
  }
  if (run.ranks.empty()) return unavailable("The run has no ranks.");
  ExpectationResult r = decided(met);
  r.value = first;
  r.measured = measured + " per step";
  r.explanation = "Collectives each rank ran per recorded step (expected " + rangeText(e.min, e.max) + ").";
  return r;
}

}  // namespace

std::vector<ExpectationResult> evaluateRunExpectations(const Run& run, const RunAnalysis& analysis,
                                                       const std::vector<Expectation>& expectations) {
  std::vector<ExpectationResult> out;
  std::optional<TraceAnalysis> first;
  std::optional<MergedRun> merged;
  std::optional<CriticalPathAnalysis> path;
  for (const Expectation& e : expectations) {
    if (e.kind == ExpectationKind::CriticalPathShare && !run.ranks.empty()) {
      // The run's path crosses ranks: over the merged trace, with collectives.
      if (!path) {
        merged = mergeRun(run, analysis.alignment.offsets_ns);
        path = analyzeRunCriticalPath(analysis, *merged);
      }
      out.push_back(expectation_kinds::criticalPathShare(*merged->trace, *path, e, false));
    } else if (e.kind == ExpectationKind::LateRankEveryStep) {
      out.push_back(lateRankEveryStep(run, analysis, e));
    } else if (e.kind == ExpectationKind::CollectivesPerStep) {
      out.push_back(collectivesPerStep(run, analysis, e));
    } else if (run.ranks.empty()) {
      out.push_back(unavailable("The run has no ranks."));
    } else {
      if (!first) first = analyzeTrace(run.ranks.front().trace);
      out.push_back(evaluateExpectation(run.ranks.front().trace, *first, e));
    }
  }
  return out;
}

}  // namespace fuselab
