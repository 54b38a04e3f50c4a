// The tutorial's "what to look for" checks: a cold first step, occupancy
// queries before launches, device-to-device copies nobody asked for, and a
// final synchronize that waits far longer than the GPU works.
#include <algorithm>
#include <map>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/common/Intervals.h"
#include "profiling/analysis/common/NameFlags.h"
#include "profiling/trace/DurationText.h"

namespace fuselab {

std::string_view diagnosticName(DiagnosticKind k) {
  switch (k) {
    case DiagnosticKind::ColdStart: return "cold_start";
    case DiagnosticKind::OccupancyQuery: return "occupancy_query";
    case DiagnosticKind::UnrequestedDeviceCopy: return "unrequested_device_copy";
    case DiagnosticKind::LongFinalSync: return "long_final_sync";
  }
  return "unknown";
}

namespace {

constexpr size_t kMaxEvidence = 100;  // enough to select in the UI, small enough for JSON

uint64_t refKey(EventRef r) { return (uint64_t(r.track) << 32) | r.index; }

// For every launch call that enqueued GPU work: the innermost and outermost
// cpu_op enclosing it on its thread, and the runtime/driver call just before it.
struct LaunchContext {
  EventRef launch;
  std::optional<EventRef> innermost_op;
  std::optional<EventRef> outermost_op;
  std::optional<EventRef> previous_call;
};

std::vector<LaunchContext> launchContexts(const Trace& trace) {
  std::vector<LaunchContext> out;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.kind != TrackKind::Cpu) continue;
    std::vector<uint32_t> open;
    std::optional<EventRef> previous_call;
    for (uint32_t i = 0; i < t.size(); ++i) {
      while (!open.empty() && t.end_ns(open.back()) <= t.start_ns[i]) open.pop_back();
      if (isLaunchCall(t.category[i])) {
        const LaunchLink* link = t.correlation[i] >= 0 ? trace.launchFor(t.correlation[i]) : nullptr;
        if (link && link->launch == EventRef{ti, i} && !link->gpu_ops.empty()) {
          LaunchContext ctx{EventRef{ti, i}, std::nullopt, std::nullopt, previous_call};
          for (uint32_t a : open) {
            if (t.category[a] != Category::CpuOp || t.end_ns(a) < t.end_ns(i)) continue;
            if (!ctx.outermost_op) ctx.outermost_op = EventRef{ti, a};
            ctx.innermost_op = EventRef{ti, a};
          }
          out.push_back(ctx);
        }
        previous_call = EventRef{ti, i};
      }
      open.push_back(i);
    }
  }
  return out;
}

double median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? double(v[n / 2]) : (double(v[n / 2 - 1]) + double(v[n / 2])) / 2.0;
}

std::optional<Diagnostic> coldStart(const std::vector<StepStats>& steps, const DiagnosticThresholds& th) {
  if (steps.size() < 2) return std::nullopt;
  const StepStats& first = steps.front();
  std::vector<int64_t> walls, windows;
  for (size_t k = 1; k < steps.size(); ++k) {
    walls.push_back(steps[k].wall_ns);
    if (steps[k].first_gpu_op_offset_ns >= 0) windows.push_back(steps[k].first_gpu_op_offset_ns);
  }
  const double wall_median = median(walls);
  const bool long_wall = first.wall_ns >= th.cold_start_wall_ratio * wall_median &&
                         first.wall_ns - wall_median >= double(th.cold_start_min_excess_ns);
  const double window_median = median(windows);
  const bool long_window = first.first_gpu_op_offset_ns >= 0 && !windows.empty() &&
                           first.first_gpu_op_offset_ns >= th.cold_start_window_ratio * window_median &&
                           first.first_gpu_op_offset_ns - window_median >= double(th.cold_start_min_excess_ns);
  if (!long_wall && !long_window) return std::nullopt;

  Diagnostic d;
  d.kind = DiagnosticKind::ColdStart;
  d.message = "Cold start: the first step (" + first.name + ") takes " + formatDuration(first.wall_ns) +
              " against a median of " + formatDuration(int64_t(wall_median)) + " for the other " +
              std::to_string(walls.size()) + " step(s)";
  if (first.first_gpu_op_offset_ns >= 0 && !windows.empty())
    d.message += ", and its first GPU op starts " + formatDuration(first.first_gpu_op_offset_ns) +
                 " after the step begins (median " + formatDuration(int64_t(window_median)) + " later on)";
  d.message += ". The first step pays one-time setup (library handles and workspaces, heuristics, lazy module "
               "loading); warming up before profiling hides that cost, it does not remove it.";
  d.evidence.push_back(first.annotation);
  return d;
}

std::optional<Diagnostic> occupancyQueries(const Trace& trace, const std::vector<LaunchContext>& launches) {
  size_t queried = 0;
  std::map<std::string, size_t> by_op;
  Diagnostic d;
  d.kind = DiagnosticKind::OccupancyQuery;
  std::string query_name;
  for (const LaunchContext& c : launches) {
    if (!c.previous_call) continue;
    std::string_view prev = trace.name(*c.previous_call);
    if (!prev.starts_with("cudaOccupancy") && !prev.starts_with("cuOccupancy")) continue;
    // The query must belong to the same operator as the launch.
    const Track& t = trace.tracks[c.launch.track];
    if (c.innermost_op && t.start_ns[c.previous_call->index] < t.start_ns[c.innermost_op->index]) continue;
    ++queried;
    if (query_name.empty()) query_name = std::string(prev);
    ++by_op[c.innermost_op ? std::string(trace.name(*c.innermost_op)) : std::string("(no operator)")];
    if (d.evidence.size() + 2 <= kMaxEvidence) {
      d.evidence.push_back(*c.previous_call);
      d.evidence.push_back(c.launch);
    }
  }
  if (queried == 0) return std::nullopt;
  auto top = std::max_element(by_op.begin(), by_op.end(),
                              [](const auto& a, const auto& b) { return a.second < b.second; });
  d.message = std::to_string(queried) + " of " + std::to_string(launches.size()) +
              " launches are preceded by an occupancy query (" + query_name + "), most in " + top->first + " (" +
              std::to_string(top->second) + "). The GEMM library asks how many blocks fit per SM before it "
              "launches; elementwise ops launch directly. Each query is extra host time per launch.";
  return d;
}

bool isCopyOperator(std::string_view name) {
  return name == "aten::copy_" || name == "aten::clone" || name == "aten::to" || name == "aten::_to_copy" ||
         name == "aten::contiguous";
}

std::optional<Diagnostic> unrequestedDeviceCopies(const Trace& trace, const std::vector<LaunchContext>& launches) {
  // `launches` is in (track, index) order: found by binary search, not a map of them all.
  auto contextOf = [&](EventRef launch) -> const LaunchContext* {
    auto it = std::lower_bound(launches.begin(), launches.end(), refKey(launch),
                               [](const LaunchContext& c, uint64_t key) { return refKey(c.launch) < key; });
    return it != launches.end() && it->launch == launch ? &*it : nullptr;
  };

  Diagnostic d;
  d.kind = DiagnosticKind::UnrequestedDeviceCopy;
  size_t count = 0;
  int64_t gpu_ns = 0;
  std::map<std::string, size_t> by_op;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (t.category[i] != Category::Memcpy) continue;
      if (trace.strings.get(t.name_id[i]).find("DtoD") == std::string_view::npos) continue;
      const LaunchContext* ctx = nullptr;
      if (t.correlation[i] >= 0)
        if (const LaunchLink* link = trace.launchFor(t.correlation[i]); link && link->launch)
          ctx = contextOf(*link->launch);
      std::string owner = ctx && ctx->outermost_op ? std::string(trace.name(*ctx->outermost_op)) : "";
      if (isCopyOperator(owner)) continue;  // the user asked for a copy
      ++count;
      gpu_ns += t.dur_ns[i];
      ++by_op[owner.empty() ? std::string("no operator") : owner];
      if (d.evidence.size() < kMaxEvidence) d.evidence.push_back({ti, i});
      if (ctx && ctx->outermost_op && d.evidence.size() < kMaxEvidence) d.evidence.push_back(*ctx->outermost_op);
    }
  }
  if (count == 0) return std::nullopt;
  std::string owners;
  for (const auto& [op, n] : by_op) owners += (owners.empty() ? "" : ", ") + op + " (" + std::to_string(n) + ")";
  d.message = std::to_string(count) + " device-to-device cop" + (count == 1 ? "y" : "ies") + " (Memcpy DtoD, " +
              formatDuration(gpu_ns) + " of GPU time) launched from inside ops that are not copies: " + owners +
              ". The framework moves data you did not ask to move (e.g. seeding an output with the bias before "
              "a GEMM).";
  return d;
}

std::optional<Diagnostic> longFinalSync(const Trace& trace, const DiagnosticThresholds& th) {
  const std::vector<uint8_t> is_sync = nameFlags(trace.strings, isSynchronizeCall);
  std::optional<EventRef> last;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.kind == TrackKind::Gpu) continue;
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (!isLaunchCall(t.category[i]) || !is_sync[t.name_id[i]]) continue;
      if (!last || t.start_ns[i] >= trace.tracks[last->track].start_ns[last->index]) last = EventRef{ti, i};
    }
  }
  if (!last) return std::nullopt;
  const Track& st = trace.tracks[last->track];
  const int64_t s = st.start_ns[last->index], e = st.end_ns(last->index), dur = e - s;
  std::vector<std::pair<int64_t, int64_t>> covered;
  for (const Track& t : trace.tracks)
    for (size_t i = 0; i < t.size(); ++i)
      if (isGpuWork(t.category[i]) && t.start_ns[i] < e && t.end_ns(i) > s)
        covered.emplace_back(std::max(s, t.start_ns[i]), std::min(e, t.end_ns(i)));
  const int64_t gpu_ns = unionLengthNs(std::move(covered));
  if (dur < th.final_sync_min_ns || double(dur) < th.final_sync_ratio * double(gpu_ns)) return std::nullopt;
  Diagnostic d;
  d.kind = DiagnosticKind::LongFinalSync;
  d.message = "The final " + std::string(trace.name(*last)) + " takes " + formatDuration(dur) +
              " but the GPU works only " + formatDuration(gpu_ns) +
              " of that time: it mostly waits for something other than your kernels (e.g. the profiler "
              "flushing its buffers). Do not read it as GPU time.";
  d.evidence.push_back(*last);
  return d;
}

}  // namespace

std::vector<Diagnostic> findDiagnostics(const Trace& trace, const std::vector<StepStats>& steps,
                                        const DiagnosticThresholds& thresholds) {
  std::vector<Diagnostic> out;
  const std::vector<LaunchContext> launches = launchContexts(trace);
  if (auto d = coldStart(steps, thresholds)) out.push_back(std::move(*d));
  if (auto d = occupancyQueries(trace, launches)) out.push_back(std::move(*d));
  if (auto d = unrequestedDeviceCopies(trace, launches)) out.push_back(std::move(*d));
  if (auto d = longFinalSync(trace, thresholds)) out.push_back(std::move(*d));
  return out;
}

}  // namespace fuselab
