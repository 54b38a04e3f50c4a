#include "profiling/Expectations.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <regex>
#include <unordered_map>

#include "profiling/DurationText.h"

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

std::string shortKernelName(std::string_view name, size_t max_chars) {
  if (name.starts_with("void ")) name.remove_prefix(5);
  // Cut the argument list: the first '(' outside template brackets.
  int angle = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '<') ++angle;
    else if (c == '>' && angle > 0) --angle;
    else if (c == '(' && name.substr(i).starts_with("(anonymous namespace)")) i += 20;
    else if (c == '(' && angle == 0 && i > 0) {
      name = name.substr(0, i);
      break;
    }
  }
  // Namespaces say little and hide the part that tells kernels apart
  // ("at::native::" in front of GeluCUDAKernelImpl and MulFunctor alike).
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size();) {
    if (name.substr(i).starts_with("(anonymous namespace)::")) {
      i += 23;
      continue;
    }
    const bool word_start = (std::isalpha(static_cast<unsigned char>(name[i])) || name[i] == '_') &&
                            (i == 0 || !(std::isalnum(static_cast<unsigned char>(name[i - 1])) || name[i - 1] == '_'));
    if (word_start) {
      size_t j = i;
      while (j < name.size() && (std::isalnum(static_cast<unsigned char>(name[j])) || name[j] == '_')) ++j;
      if (name.substr(j).starts_with("::")) {
        i = j + 2;
        continue;
      }
      out.append(name.substr(i, j - i));
      i = j;
      continue;
    }
    out += name[i++];
  }
  if (max_chars >= 4 && out.size() > max_chars) out = out.substr(0, max_chars - 3) + "...";
  return out;
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

namespace {

// ---------------------------------------------------------------------------
// Small helpers.

std::string number(double v) {
  char buf[32];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string ratioText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", v);
  return buf;
}

bool inRange(double v, const std::optional<double>& min, const std::optional<double>& max) {
  return (!min || v >= *min) && (!max || v <= *max);
}

// "exactly 3", "3 to 5", "at least 1", "at most 0".
std::string rangeText(const std::optional<double>& min, const std::optional<double>& max, bool percent = false) {
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

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
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
};

// ---------------------------------------------------------------------------
// Per-step counts.

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

// ---------------------------------------------------------------------------
// CPU-side structure.

std::string joinNames(const std::vector<std::string>& names, std::string_view sep) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? std::string(sep) : "") + names[i];
  return s;
}

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

// ---------------------------------------------------------------------------
// Time figures.

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

bool diagnosticNeedsGpu(DiagnosticKind k) { return k != DiagnosticKind::ColdStart; }

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

// The runtime/driver calls inside the innermost cpu_op around `launch`, up to
// and including it: "aten::mm: cudaMemsetAsync -> cuLaunchKernelEx".
std::string launchRecipe(const Trace& trace, EventRef launch, std::vector<EventRef>* calls) {
  const Track& t = trace.tracks[launch.track];
  const int64_t ls = t.start_ns[launch.index], le = t.end_ns(launch.index);
  constexpr uint32_t kMaxScan = 4096;
  std::optional<uint32_t> op;
  for (uint32_t back = 1; back <= launch.index && back <= kMaxScan; ++back) {
    uint32_t j = launch.index - back;
    if (t.category[j] == Category::CpuOp && t.start_ns[j] <= ls && t.end_ns(j) >= le) {
      op = j;
      break;
    }
  }
  std::vector<std::string> names;
  const uint32_t from = op ? *op + 1 : launch.index;
  for (uint32_t j = from; j <= launch.index; ++j) {
    if (!isLaunchCall(t.category[j])) continue;
    if (op && t.end_ns(j) > t.end_ns(*op)) continue;
    names.emplace_back(trace.strings.get(t.name_id[j]));
    if (calls) calls->push_back({launch.track, j});
  }
  constexpr size_t kMaxCalls = 8;
  if (names.size() > kMaxCalls) names.erase(names.begin(), names.end() - kMaxCalls);
  return (op ? std::string(trace.strings.get(t.name_id[*op])) : std::string("(no op)")) + ": " +
         joinNames(names, " -> ");
}

ExpectationResult kernelLaunchedVia(const Context& c, const Expectation& e) {
  if (!c.hasGpu()) return unavailable(kNoGpu);
  NameMatcher kernels(c.trace, {e.pattern}, true);
  NameMatcher apis(c.trace, e.apis, false);
  size_t matched = 0, via = 0;
  std::map<std::string, size_t> recipes;
  std::map<std::string, size_t> other_apis;
  std::map<std::string, size_t> launch_names;  // of every matching kernel's launch call
  std::vector<EventRef> good_evidence, bad_evidence;
  for (EventRef k : c.a.scope.gpu_ops) {
    const Track& t = c.trace.tracks[k.track];
    if (t.category[k.index] != Category::Kernel || !kernels.matches(k)) continue;
    ++matched;
    const LaunchLink* link = t.correlation[k.index] >= 0 ? c.trace.launchFor(t.correlation[k.index]) : nullptr;
    if (!link || !link->launch) {
      ++other_apis["(launch call not captured)"];
      addEvidence(bad_evidence, k);
      continue;
    }
    std::vector<EventRef> calls;
    ++recipes[launchRecipe(c.trace, *link->launch, good_evidence.empty() ? &calls : nullptr)];
    ++launch_names[std::string(c.trace.name(*link->launch))];
    if (apis.matches(*link->launch)) {
      ++via;
      if (good_evidence.empty()) {
        good_evidence.push_back(k);
        for (EventRef x : calls) addEvidence(good_evidence, x);
      }
    } else {
      ++other_apis[std::string(c.trace.name(*link->launch))];
      addEvidence(bad_evidence, k);
      addEvidence(bad_evidence, *link->launch);
    }
  }
  if (matched == 0) {
    ExpectationResult r = decided(false);
    r.measured = "no matching kernel";
    r.value = 0;
    std::vector<EventRef> all_kernels;
    for (EventRef x : c.a.scope.gpu_ops)
      if (c.trace.tracks[x.track].category[x.index] == Category::Kernel) all_kernels.push_back(x);
    r.explanation = "No kernel matches '" + e.pattern + "'. Kernels in scope: " + c.opSummary(all_kernels) + ".";
    return r;
  }
  std::string recipe_text;
  for (const auto& [rec, n] : recipes) recipe_text += (recipe_text.empty() ? "" : "; ") + rec + " (x" + std::to_string(n) + ")";
  ExpectationResult r = decided(via == matched);
  r.value = double(via) / double(matched);
  std::string used;
  for (const auto& [n, k] : launch_names) used += (used.empty() ? "" : ", ") + n + " x" + std::to_string(k);
  r.measured = std::to_string(via) + " of " + std::to_string(matched) + " launched as expected (" +
               (used.empty() ? std::string("no launch call captured") : used) + ")";
  r.explanation = "Recipe: " + recipe_text + ".";
  if (via != matched) {
    std::string others;
    for (const auto& [n, k] : other_apis) others += (others.empty() ? "" : ", ") + n + " x" + std::to_string(k);
    r.explanation = std::to_string(matched - via) + " of " + std::to_string(matched) +
                    " matching kernels were launched otherwise: " + others + ". " + r.explanation;
    r.evidence = std::move(bad_evidence);
  } else {
    r.evidence = std::move(good_evidence);
  }
  return r;
}

std::vector<EventRef> matchingKernels(const Context& c, const std::string& pattern) {
  NameMatcher m(c.trace, {pattern}, true);
  std::vector<EventRef> out;
  for (EventRef r : c.a.scope.gpu_ops)
    if (c.trace.tracks[r.track].category[r.index] == Category::Kernel && m.matches(r)) out.push_back(r);
  return out;
}

ExpectationResult kernelDurationSpread(const Context& c, const Expectation& e) {
  if (!c.hasGpu()) return unavailable(kNoGpu);
  const std::vector<EventRef> found = matchingKernels(c, e.pattern);
  if (found.size() < 2) {
    ExpectationResult r = decided(false);
    r.measured = std::to_string(found.size()) + " run(s)";
    r.explanation = "The spread needs at least 2 runs of a kernel matching '" + e.pattern + "'; the trace has " +
                    std::to_string(found.size()) + ".";
    for (EventRef x : found) addEvidence(r.evidence, x);
    return r;
  }
  auto dur = [&](EventRef x) { return c.trace.tracks[x.track].dur_ns[x.index]; };
  auto [lo, hi] = std::minmax_element(found.begin(), found.end(), [&](EventRef a, EventRef b) { return dur(a) < dur(b); });
  std::vector<double> durations;
  for (EventRef x : found) durations.push_back(double(dur(x)));
  const double spread = dur(*lo) > 0 ? double(dur(*hi) - dur(*lo)) / double(dur(*lo)) : 0.0;
  ExpectationResult r = decided(inRange(spread, e.min, e.max));
  r.value = spread;
  r.measured = "spread " + formatPercent(spread);
  r.explanation = std::to_string(found.size()) + " runs of " + c.opSummary({*lo}, 1) + ": fastest " +
                  formatDuration(dur(*lo)) + ", median " + formatDuration(int64_t(median(durations))) + ", slowest " +
                  formatDuration(dur(*hi)) + " (spread " + formatPercent(spread) + ", expected " +
                  rangeText(e.min, e.max, true) + ").";
  addEvidence(r.evidence, *lo);
  addEvidence(r.evidence, *hi);
  return r;
}

ExpectationResult kernelTimeShare(const Context& c, const Expectation& e) {
  if (!c.hasGpu()) return unavailable(kNoGpu);
  NameMatcher m(c.trace, {e.pattern}, true);
  int64_t total = 0, matched = 0;
  std::vector<EventRef> found;
  for (EventRef x : c.a.scope.gpu_ops) {
    const Track& t = c.trace.tracks[x.track];
    if (t.category[x.index] != Category::Kernel) continue;
    total += t.dur_ns[x.index];
    if (m.matches(x)) {
      matched += t.dur_ns[x.index];
      found.push_back(x);
    }
  }
  if (total == 0) return unavailable("The trace has no kernel time in scope.");
  const double share = double(matched) / double(total);
  ExpectationResult r = decided(inRange(share, e.min, e.max));
  r.value = share;
  r.measured = formatPercent(share);
  r.explanation = "Kernels matching '" + e.pattern + "' run " + formatDuration(matched) + " of " +
                  formatDuration(total) + " kernel time (" + formatPercent(share) + ", expected " +
                  rangeText(e.min, e.max, true) + ")" + (found.empty() ? "." : ": " + c.opSummary(found) + ".");
  for (EventRef x : found) addEvidence(r.evidence, x);
  return r;
}

ExpectationResult finalSyncGpuShare(const Context& c, const Expectation& e) {
  if (!c.hasGpu()) return unavailable(kNoGpu);
  std::optional<EventRef> last;
  for (uint32_t ti = 0; ti < c.trace.tracks.size(); ++ti) {
    const Track& t = c.trace.tracks[ti];
    if (t.kind == TrackKind::Gpu) continue;
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (!isLaunchCall(t.category[i]) || !isSynchronizeCall(c.trace.strings.get(t.name_id[i]))) continue;
      if (!last || t.start_ns[i] >= c.trace.tracks[last->track].start_ns[last->index]) last = EventRef{ti, i};
    }
  }
  if (!last) return unavailable("The trace has no synchronize call (cudaDeviceSynchronize, cudaStreamSynchronize, "
                                "cudaEventSynchronize).");
  const Track& st = c.trace.tracks[last->track];
  const int64_t s = st.start_ns[last->index], en = st.end_ns(last->index), dur = en - s;
  std::vector<std::pair<int64_t, int64_t>> covered;
  std::vector<EventRef> under;
  for (uint32_t ti = 0; ti < c.trace.tracks.size(); ++ti) {
    const Track& t = c.trace.tracks[ti];
    for (uint32_t i = 0; i < t.size(); ++i)
      if (isGpuWork(t.category[i]) && t.start_ns[i] < en && t.end_ns(i) > s) {
        covered.emplace_back(std::max(s, t.start_ns[i]), std::min(en, t.end_ns(i)));
        under.push_back({ti, i});
      }
  }
  const int64_t busy = unionLengthNs(std::move(covered));
  const double share = dur > 0 ? double(busy) / double(dur) : 0.0;
  ExpectationResult r = decided(inRange(share, e.min, e.max));
  r.value = share;
  r.measured = formatPercent(share) + " of " + formatDuration(dur);
  r.explanation = "The final " + std::string(c.trace.name(*last)) + " lasts " + formatDuration(dur) +
                  "; the GPU works " + formatDuration(busy) + " of that time (" + formatPercent(share) +
                  ", expected " + rangeText(e.min, e.max, true) + ").";
  addEvidence(r.evidence, *last);
  for (EventRef x : under) addEvidence(r.evidence, x);
  return r;
}

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

ExpectationResult evaluateExpectation(const Trace& trace, const TraceAnalysis& analysis, const Expectation& e) {
  const Context c(trace, analysis);
  return evaluateGuarded(c, e);
}

std::vector<ExpectationResult> evaluateExpectations(const Trace& trace, const TraceAnalysis& analysis,
                                                    const std::vector<Expectation>& expectations) {
  const Context c(trace, analysis);
  std::vector<ExpectationResult> out;
  out.reserve(expectations.size());
  for (const Expectation& e : expectations) out.push_back(evaluateGuarded(c, e));
  return out;
}

}  // namespace fuselab
