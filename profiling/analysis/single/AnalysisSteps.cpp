// Per-step figures from the ProfilerStep#k annotations. GPU ops belong to the
// step in which their launch call started (the GPU may run them later).
#include <algorithm>
#include <charconv>
#include <map>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/common/Intervals.h"
#include "profiling/analysis/common/NameFlags.h"

namespace fuselab {

std::optional<int> profilerStepIndex(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (!name.starts_with(kPrefix) || name.size() == kPrefix.size()) return std::nullopt;
  std::string_view digits = name.substr(kPrefix.size());
  int k = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
  if (ec != std::errc() || end != digits.data() + digits.size() || k < 0) return std::nullopt;
  return k;
}

std::vector<EventRef> findProfilerSteps(const Trace& trace) {
  const std::vector<uint8_t> is_step =
      nameFlags(trace.strings, [](std::string_view name) { return profilerStepIndex(name).has_value(); });
  std::vector<EventRef> out;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.kind != TrackKind::Cpu) continue;
    for (uint32_t i = 0; i < t.size(); ++i) {
      Category c = t.category[i];
      if (c != Category::UserAnnotation && c != Category::CpuOp) continue;
      if (is_step[t.name_id[i]]) out.push_back({ti, i});
    }
  }
  std::sort(out.begin(), out.end(), [&](EventRef a, EventRef b) {
    return trace.tracks[a.track].start_ns[a.index] < trace.tracks[b.track].start_ns[b.index];
  });
  return out;
}

namespace {

// A merged run (RunMerge.h) holds each ProfilerStep#k once per rank. The
// run's step k spans all of them on the aligned axis, so step bands, step
// keys and the Steps table count the run's steps, not each rank's.
std::vector<StepStats> runSteps(std::vector<StepStats> per_rank) {
  std::map<int, StepStats> by_index;
  for (StepStats& s : per_rank) {
    auto [it, added] = by_index.try_emplace(s.index, s);
    if (added) continue;
    it->second.start_ns = std::min(it->second.start_ns, s.start_ns);
    it->second.end_ns = std::max(it->second.end_ns, s.end_ns);
  }
  std::vector<StepStats> out;
  for (auto& [index, s] : by_index) {
    s.wall_ns = s.end_ns - s.start_ns;
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const StepStats& a, const StepStats& b) { return a.start_ns < b.start_ns; });
  return out;
}

bool isMergedRun(const Trace& trace) {
  return std::any_of(trace.tracks.begin(), trace.tracks.end(), [](const Track& t) { return t.rank >= 0; });
}

}  // namespace

std::vector<StepStats> computeSteps(const Trace& trace) {
  std::vector<StepStats> steps;
  for (EventRef r : findProfilerSteps(trace)) {
    const Track& t = trace.tracks[r.track];
    StepStats s;
    s.name = std::string(trace.strings.get(t.name_id[r.index]));
    s.index = *profilerStepIndex(s.name);
    s.annotation = r;
    s.start_ns = t.start_ns[r.index];
    s.end_ns = t.end_ns(r.index);
    s.wall_ns = s.end_ns - s.start_ns;
    steps.push_back(std::move(s));
  }
  if (steps.empty()) return steps;
  if (isMergedRun(trace)) steps = runSteps(std::move(steps));

  // The step containing `time`: the last one starting at or before it. Times
  // come mostly in increasing order (each track's events are sorted by
  // start), so the search resumes from the previous answer.
  size_t after = 0;  // steps [0, after) start at or before the previous time
  auto stepAt = [&](int64_t time) -> StepStats* {
    auto firstAfter = [&](size_t from, size_t to) {
      auto startsAfter = [](int64_t v, const StepStats& s) { return v < s.start_ns; };
      const auto begin = steps.begin();
      return size_t(std::upper_bound(begin + ptrdiff_t(from), begin + ptrdiff_t(to), time, startsAfter) - begin);
    };
    if (after > 0 && steps[after - 1].start_ns > time) {
      after = firstAfter(0, after);
    } else {
      const size_t near = std::min(steps.size(), after + 8);
      while (after < near && steps[after].start_ns <= time) ++after;
      if (after == near && after < steps.size() && steps[after].start_ns <= time) after = firstAfter(after, steps.size());
    }
    if (after == 0) return nullptr;
    StepStats& s = steps[after - 1];
    return time <= s.end_ns ? &s : nullptr;
  };

  std::vector<std::vector<std::pair<int64_t, int64_t>>> gpu_intervals(steps.size());
  std::vector<std::vector<std::pair<int64_t, int64_t>>> cpu_intervals(steps.size());
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    for (uint32_t i = 0; i < t.size(); ++i) {
      Category c = t.category[i];
      if (isGpuWork(c)) {
        StepStats* s = stepAt(attributionTimeNs(trace, {ti, i}));
        if (!s) continue;
        if (c == Category::Kernel) ++s->kernels;
        ++s->gpu_ops;
        gpu_intervals[s - steps.data()].emplace_back(t.start_ns[i], t.end_ns(i));
        int64_t offset = t.start_ns[i] - s->start_ns;
        if (s->first_gpu_op_offset_ns < 0 || offset < s->first_gpu_op_offset_ns) s->first_gpu_op_offset_ns = offset;
      } else if (t.kind == TrackKind::Cpu && isLaunchCall(c) && t.correlation[i] >= 0) {
        const LaunchLink* link = trace.launchFor(t.correlation[i]);
        if (!link || link->gpu_ops.empty() || link->launch != EventRef{ti, i}) continue;
        if (StepStats* s = stepAt(t.start_ns[i])) ++s->launches;
      } else if (t.kind == TrackKind::Cpu && c == Category::CpuOp) {
        StepStats* s = stepAt(t.start_ns[i]);
        if (!s) continue;
        cpu_intervals[s - steps.data()].emplace_back(t.start_ns[i], std::min(t.end_ns(i), s->end_ns));
      }
    }
  }
  for (size_t k = 0; k < steps.size(); ++k) {
    steps[k].gpu_busy_ns = unionLengthNs(std::move(gpu_intervals[k]));
    steps[k].cpu_dispatch_ns = unionLengthNs(std::move(cpu_intervals[k]));
  }
  return steps;
}

}  // namespace fuselab
