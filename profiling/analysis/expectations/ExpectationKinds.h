// Internal to the expectation evaluation (Expectations*.cpp): the helpers the
// kinds share and one evaluation function per kind or pair of kinds.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "profiling/analysis/common/Intervals.h"  // median
#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/critical_path/CriticalPath.h"
#include "profiling/analysis/expectations/Expectations.h"
#include "profiling/trace/Trace.h"

namespace fuselab::expectation_kinds {

// ---------------------------------------------------------------------------
// Small helpers (Expectations.cpp).

bool inRange(double v, const std::optional<double>& min, const std::optional<double>& max);
// "exactly 3", "3 to 5", "at least 1", "at most 0".
std::string rangeText(const std::optional<double>& min, const std::optional<double>& max, bool percent = false);
std::string joinCounts(const std::vector<uint64_t>& counts);
std::string joinNames(const std::vector<std::string>& names, std::string_view sep);
void addEvidence(std::vector<EventRef>& out, EventRef r);
ExpectationResult unavailable(std::string why);
ExpectationResult decided(bool met);

extern const char* kNoGpu;
extern const char* kNoSteps;

// Names matched by regex, cached per interned name id (traces repeat names).
class NameMatcher {
 public:
  // search: the pattern may match anywhere (case-insensitive); else each
  // regex must match the whole name (case-sensitive). Throws std::regex_error.
  NameMatcher(const Trace& trace, const std::vector<std::string>& patterns, bool search) : trace_(trace), search_(search) {
    auto flags = std::regex::ECMAScript | std::regex::optimize;
    if (search) flags |= std::regex::icase;
    for (const auto& p : patterns) regexes_.emplace_back(p, flags);
  }
  bool matches(uint32_t name_id) {
    if (name_id >= cache_.size()) cache_.resize(trace_.strings.size(), -1);
    if (name_id >= cache_.size()) return false;
    int8_t& c = cache_[name_id];
    if (c < 0) {
      const std::string name(trace_.strings.get(name_id));
      c = 0;
      for (const auto& re : regexes_)
        if (search_ ? std::regex_search(name, re) : std::regex_match(name, re)) {
          c = 1;
          break;
        }
    }
    return c == 1;
  }
  bool matches(EventRef r) { return matches(trace_.tracks[r.track].name_id[r.index]); }

 private:
  const Trace& trace_;
  bool search_;
  std::vector<std::regex> regexes_;
  std::vector<int8_t> cache_;
};

// ---------------------------------------------------------------------------
// What every check needs: the analysis plus the in-scope GPU ops per step.

class Context {
 public:
  Context(const Trace& trace, const TraceAnalysis& a) : trace(trace), a(a), step_ops(a.steps.size()) {
    for (EventRef r : a.scope.gpu_ops)
      if (auto k = stepOf(attributionTimeNs(trace, r))) step_ops[*k].push_back(r);
  }

  const Trace& trace;
  const TraceAnalysis& a;
  std::vector<std::vector<EventRef>> step_ops;  // aligned with a.steps

  bool hasGpu() const { return a.gpu_op_count > 0; }

  // The trace's critical path, computed on first use and shared by the
  // expectations that need it.
  const CriticalPathAnalysis& criticalPath() const {
    if (!critical_path_) critical_path_ = analyzeCriticalPath(trace);
    return *critical_path_;
  }
  bool hasSteps() const { return !a.steps.empty(); }

  // Same rule as computeSteps: the last step starting at or before `t`, if
  // `t` is not past its end.
  std::optional<size_t> stepOf(int64_t t) const {
    auto it = std::upper_bound(a.steps.begin(), a.steps.end(), t,
                               [](int64_t v, const StepStats& s) { return v < s.start_ns; });
    if (it == a.steps.begin()) return std::nullopt;
    --it;
    if (t > it->end_ns) return std::nullopt;
    return size_t(it - a.steps.begin());
  }

  std::vector<size_t> selected(StepSelection sel) const {
    std::vector<size_t> out;
    for (size_t k = (sel == StepSelection::AfterFirst ? 1 : 0); k < a.steps.size(); ++k) out.push_back(k);
    return out;
  }

  std::string stepRangeText(const std::vector<size_t>& sel) const {
    if (sel.empty()) return "no steps";
    if (sel.size() == 1) return a.steps[sel.front()].name;
    return std::to_string(sel.size()) + " steps (" + a.steps[sel.front()].name + " .. " + a.steps[sel.back()].name + ")";
  }

  // CPU events (any category but GPU work) whose start lies in a step (or
  // anywhere when there are none) and whose name `m` matches.
  std::vector<EventRef> cpuEvents(NameMatcher& m) const {
    std::vector<EventRef> out;
    for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
      const Track& t = trace.tracks[ti];
      if (t.kind != TrackKind::Cpu) continue;
      for (uint32_t i = 0; i < t.size(); ++i) {
        if (isGpuWork(t.category[i]) || !m.matches(t.name_id[i])) continue;
        if (hasSteps() && !stepOf(t.start_ns[i])) continue;
        out.push_back({ti, i});
      }
    }
    return out;
  }

  // Kernel names of `ops` with counts: "nvjet_sm90_... x3, GeluCUDA... x1".
  std::string opSummary(const std::vector<EventRef>& ops, size_t max_names = 6) const {
    std::map<std::string, size_t> counts;
    std::vector<std::string> order;
    for (EventRef r : ops) {
      std::string n = shortKernelName(trace.name(r), 90);
      if (counts[n]++ == 0) order.push_back(n);
    }
    if (order.empty()) return "none";
    std::string s;
    for (size_t i = 0; i < order.size() && i < max_names; ++i)
      s += (i ? ", " : "") + order[i] + (counts[order[i]] > 1 ? " x" + std::to_string(counts[order[i]]) : "");
    if (order.size() > max_names) s += ", and " + std::to_string(order.size() - max_names) + " more names";
    return s;
  }

  // Launch calls on CPU tracks that enqueued GPU work, per track sorted by start.
  const std::vector<std::vector<uint32_t>>& launchesByTrack() const {
    if (launches_by_track_.empty()) {
      launches_by_track_.resize(trace.tracks.size());
      for (const LaunchLink& l : trace.launches())
        if (l.launch && !l.gpu_ops.empty()) launches_by_track_[l.launch->track].push_back(l.launch->index);
      for (auto& v : launches_by_track_) std::sort(v.begin(), v.end());
    }
    return launches_by_track_;
  }

  // Launch calls nested in CPU event `op` (same thread, inside its interval).
  std::vector<EventRef> launchesInside(EventRef op) const {
    std::vector<EventRef> out;
    const Track& t = trace.tracks[op.track];
    const int64_t s = t.start_ns[op.index], e = t.end_ns(op.index);
    const auto& v = launchesByTrack()[op.track];
    auto it = std::lower_bound(v.begin(), v.end(), s, [&](uint32_t i, int64_t time) { return t.start_ns[i] < time; });
    for (; it != v.end() && t.start_ns[*it] <= e; ++it)
      if (*it != op.index && t.end_ns(*it) <= e) out.push_back({op.track, *it});
    return out;
  }

 private:
  mutable std::vector<std::vector<uint32_t>> launches_by_track_;
  mutable std::optional<CriticalPathAnalysis> critical_path_;
};

// ---------------------------------------------------------------------------
// The kinds, by file.

// ExpectationsCounts.cpp: GPU ops counted per step or over the trace.
ExpectationResult kernelsPerStep(const Context& c, const Expectation& e);
ExpectationResult launchesPerStep(const Context& c, const Expectation& e);
ExpectationResult gpuOpMatches(const Context& c, const Expectation& e, GpuOpFilter filter);
ExpectationResult noKernelMatching(const Context& c, const Expectation& e);

// ExpectationsCpuOps.cpp: CPU-side structure.
ExpectationResult noKernelUnderOp(const Context& c, const Expectation& e);
ExpectationResult opChain(const Context& c, const Expectation& e);
ExpectationResult opAbsent(const Context& c, const Expectation& e);

// ExpectationsTiming.cpp: time figures, the verdict and the diagnostics.
ExpectationResult firstStepLonger(const Context& c, const Expectation& e);
ExpectationResult utilization(const Context& c, const Expectation& e, bool below);
ExpectationResult verdictIs(const Context& c, const Expectation& e);
ExpectationResult cpuGpuTime(const Context& c, const Expectation& e, bool cpu_exceeds);
ExpectationResult diagnostic(const Context& c, const Expectation& e, bool present);
ExpectationResult observerEffect(const Context& c, const Expectation& e);

// ExpectationsKernels.cpp: matching kernels' launch calls, durations and time
// share, and GPU work under the final synchronize.
ExpectationResult kernelLaunchedVia(const Context& c, const Expectation& e);
ExpectationResult kernelDurationSpread(const Context& c, const Expectation& e);
ExpectationResult kernelTimeShare(const Context& c, const Expectation& e);
ExpectationResult finalSyncGpuShare(const Context& c, const Expectation& e);

// ExpectationsCriticalPath.cpp: what the steps' critical path went through,
// for a trace or a merged run (`path` of `trace`). `evidence_from_trace`:
// whether its events are the caller's (a run's merged trace's are not).
ExpectationResult criticalPathShare(const Trace& trace, const CriticalPathAnalysis& path, const Expectation& e,
                                    bool evidence_from_trace = true);

// ExpectationsStacks.cpp: the flame graph of the steps.
ExpectationResult flameShareUnder(const Context& c, const Expectation& e);

// ExpectationsMemory.cpp: memory the trace recorded.
ExpectationResult peakMemoryPerForward(const Context& c, const Expectation& e);

}  // namespace fuselab::expectation_kinds
