// Expectations about kernels matching a pattern (the calls that launched them,
// their duration spread, their share of kernel time) and the final synchronize.
#include "profiling/analysis/expectations/ExpectationKinds.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "profiling/analysis/common/Intervals.h"
#include "profiling/trace/DurationText.h"

namespace fuselab::expectation_kinds {

namespace {

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

std::vector<EventRef> matchingKernels(const Context& c, const std::string& pattern) {
  NameMatcher m(c.trace, {pattern}, true);
  std::vector<EventRef> out;
  for (EventRef r : c.a.scope.gpu_ops)
    if (c.trace.tracks[r.track].category[r.index] == Category::Kernel && m.matches(r)) out.push_back(r);
  return out;
}

}  // namespace

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

}  // namespace fuselab::expectation_kinds
